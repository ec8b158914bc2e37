import BSON
import DocumentStore
import Foundation

/// A scheduled trigger's firing: which schedule time it stands for (catch-up runs carry past times).
public struct ScheduledEvent: Sendable, Equatable {
    public var triggerName: String
    public var scheduledTime: Date

    public init(triggerName: String, scheduledTime: Date) {
        self.triggerName = triggerName
        self.scheduledTime = scheduledTime
    }
}

/// An authentication trigger's event, shaped like App Services' (`operationType`, `providers`, `user`, `time`).
public struct AuthEvent: Sendable, Equatable {
    public enum OperationType: String, Sendable {
        case create = "CREATE"
        case login = "LOGIN"
        case delete = "DELETE"
    }

    public var operationType: OperationType
    public var providers: [String]
    public var user: FunctionUser
    public var time: Date

    public init(operationType: OperationType, providers: [String], user: FunctionUser, time: Date) {
        self.operationType = operationType
        self.providers = providers
        self.user = user
        self.time = time
    }
}

/// What a trigger hands its function.
package enum TriggerInput: Sendable {
    case database(ChangeEvent)
    case scheduled(ScheduledEvent)
    case authentication(AuthEvent)
}

/// One attempt at running a trigger's function on one event: what the dispatcher hands the function layer.
package struct TriggerInvocation: Sendable {
    package var trigger: TriggerDefinition
    package var input: TriggerInput
    /// Stable across retries: the change event's resume token, or the schedule time, or the auth event's id.
    package var eventId: String
    /// 1 for the first attempt.
    package var attempt: Int
    /// Whether no attempt follows this one when it fails (its failure goes to the trigger's `onFailure`).
    package var isLastAttempt: Bool

    package init(
        trigger: TriggerDefinition, input: TriggerInput, eventId: String, attempt: Int, isLastAttempt: Bool = false
    ) {
        self.trigger = trigger
        self.input = input
        self.eventId = eventId
        self.attempt = attempt
        self.isLastAttempt = isLastAttempt
    }
}

/// Runs a trigger's function for one invocation; throwing means the attempt failed (the dispatcher retries).
package typealias TriggerHandler = @Sendable (TriggerInvocation) async throws -> Void

/// Runs a trigger's `onSuspend` function (a callable, named `function`) on the suspension that just stopped the
/// trigger. Its failure is its own (recorded in the invocation log): the trigger stays suspended either way.
package typealias TriggerSuspensionAlert =
    @Sendable (_ trigger: TriggerDefinition, _ suspension: TriggerSuspension) async -> Void
