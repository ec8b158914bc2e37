import BSON
import DocumentStore

/// A function a client (or another function) calls with arguments, returning a value.
public typealias CallableFunction = @Sendable ([BSON], FunctionContext) async throws -> BSON
/// An HTTPS endpoint's function in App Services' `(request, response)` form; its return value is the body when
/// the endpoint has `respond_result` and the function set no body. Registered as a callable that only an
/// endpoint's request can run.
public typealias EndpointFunction =
    @Sendable (EndpointRequest, EndpointResponse, FunctionContext) async throws -> BSON
/// A database trigger's function: one change event per run.
public typealias DatabaseTriggerFunction = @Sendable (ChangeEvent, FunctionContext) async throws -> Void
/// A scheduled trigger's function: one schedule time per run.
public typealias ScheduledTriggerFunction = @Sendable (ScheduledEvent, FunctionContext) async throws -> Void
/// An authentication trigger's function: one user created, logged in or deleted per run.
public typealias AuthenticationTriggerFunction = @Sendable (AuthEvent, FunctionContext) async throws -> Void

/// A registered function: its body, whose type says what may run it.
package enum AppFunction: Sendable {
    case callable(CallableFunction)
    case database(DatabaseTriggerFunction)
    case scheduled(ScheduledTriggerFunction)
    case authentication(AuthenticationTriggerFunction)

    package var kind: FunctionKind {
        switch self {
        case .callable: .callable
        case .database: .database
        case .scheduled: .scheduled
        case .authentication: .authentication
        }
    }
}

/// What runs a function: clients and other functions (callable), or one kind of trigger.
package enum FunctionKind: String, Sendable, CaseIterable {
    case callable, database, scheduled, authentication

    /// The kind of function a trigger needs.
    package init(trigger: TriggerDefinition.Kind) {
        switch trigger {
        case .database: self = .database
        case .scheduled: self = .scheduled
        case .authentication: self = .authentication
        }
    }

    /// How messages name the kind: "callable", "a database trigger function", ….
    package var phrase: String {
        switch self {
        case .callable: "callable"
        case .database: "a database trigger function"
        case .scheduled: "a scheduled trigger function"
        case .authentication: "an authentication trigger function"
        }
    }

    /// How messages name the trigger type that runs this kind: "a database trigger", …; nil for callables.
    package var triggerPhrase: String? {
        switch self {
        case .callable: nil
        case .database: "a database trigger"
        case .scheduled: "a scheduled trigger"
        case .authentication: "an authentication trigger"
        }
    }

    /// The Swift signature a function of this kind has.
    package var signature: String {
        switch self {
        case .callable: "([BSON], FunctionContext) async throws -> BSON"
        case .database: "(ChangeEvent, FunctionContext) async throws"
        case .scheduled: "(ScheduledEvent, FunctionContext) async throws"
        case .authentication: "(AuthEvent, FunctionContext) async throws"
        }
    }
}
