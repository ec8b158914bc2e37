import BSON

/// The app's functions by name. The `Functions` target's generated `functionRegistry` registers every file in
/// `functions/` under its file name; `register` picks the kind from the function's type:
///
/// ```swift
/// func updateFCMUserToken(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON { … }
/// func onBookChange(_ event: ChangeEvent, _ context: FunctionContext) async throws { … }
///
/// var registry = FunctionRegistry()
/// registry.register("updateFCMUserToken", updateFCMUserToken)  // callable
/// registry.register("onBookChange", onBookChange)              // database trigger function
/// ```
public struct FunctionRegistry: Sendable {
    private var functions: [String: AppFunction] = [:]

    public init() {}

    /// Registers `function` under `name`, replacing an earlier registration of the same name.
    package mutating func register(_ name: String, _ function: AppFunction) {
        functions[name] = function
    }

    public mutating func register(_ name: String, _ function: @escaping CallableFunction) {
        register(name, .callable(function))
    }

    public mutating func register(_ name: String, _ function: @escaping EndpointFunction) {
        register(name) { (_: [BSON], context: FunctionContext) async throws -> BSON in
            guard let request = context.request, let response = context.response else {
                throw FunctionCallError(
                    code: .functionExecutionError,
                    message:
                        "function '\(name)' answers HTTPS endpoints (request, response): call it through /app/{app id}/endpoint/{route}"
                )
            }
            return try await function(request, response, context)
        }
    }

    public mutating func register(_ name: String, _ function: @escaping DatabaseTriggerFunction) {
        register(name, .database(function))
    }

    public mutating func register(_ name: String, _ function: @escaping ScheduledTriggerFunction) {
        register(name, .scheduled(function))
    }

    public mutating func register(_ name: String, _ function: @escaping AuthenticationTriggerFunction) {
        register(name, .authentication(function))
    }

    package subscript(name: String) -> AppFunction? { functions[name] }

    /// The registered functions' names: an app's tests check with it that every function it configures is registered.
    public var names: Set<String> { Set(functions.keys) }

    package var isEmpty: Bool { functions.isEmpty }

    /// The functions a client may call by name (not those only a trigger runs), for "did you mean" hints.
    package var callableNames: [String] {
        functions.compactMap { name, function in
            if case .callable = function { return name }
            return nil
        }.sorted()
    }

    /// Throws what a call of `name` meets before anything runs: no such function, or one only its trigger runs.
    package func checkCallable(_ name: String) throws(FunctionCallError) {
        guard let function = functions[name] else { throw .notFound(name) }
        guard case .callable = function else { throw .notCallable(name, kind: function.kind) }
    }
}

extension FunctionRegistry {
    /// Problems between the configuration and the registered functions that the configuration alone cannot
    /// show: a trigger whose function has the wrong kind, a trigger's `onSuspend` function or a log forwarder's
    /// function that is not callable (`file` names `triggers.yaml` in the messages).
    package func check(_ definition: AppDefinition, file: String = AppConfiguration.triggersFile)
        -> [ConfigurationError]
    {
        let forwarders = definition.logForwarders.compactMap { forwarder -> ConfigurationError? in
            guard case .function(let name) = forwarder.action, let function = self[name], function.kind != .callable
            else { return nil }
            return ConfigurationError(
                file: file, location: nil,
                message:
                    "log forwarder '\(forwarder.name)' calls '\(name)', but '\(name)' is \(function.kind.phrase) (a log forwarder's function is \(FunctionKind.callable.signature), given the array of records)"
            )
        }
        return triggerProblems(definition, file: file) + forwarders
    }

    private func triggerProblems(_ definition: AppDefinition, file: String) -> [ConfigurationError] {
        definition.triggers.flatMap { trigger -> [ConfigurationError] in
            var problems: [ConfigurationError] = []
            if let function = self[trigger.function] {
                let needed = FunctionKind(trigger: trigger.kind)
                if function.kind != needed, let type = needed.triggerPhrase {
                    problems.append(
                        ConfigurationError(
                            file: file, location: nil,
                            message:
                                "trigger '\(trigger.name)' is \(type) but function '\(trigger.function)' is \(function.kind.phrase) (\(type)'s function is \(needed.signature))"
                        ))
                }
            }
            if let alert = trigger.onSuspend, let function = self[alert], function.kind != .callable {
                problems.append(
                    ConfigurationError(
                        file: file, location: nil,
                        message:
                            "trigger '\(trigger.name)' calls '\(alert)' when it suspends, but '\(alert)' is \(function.kind.phrase) (an onSuspend function is \(FunctionKind.callable.signature), given the suspension)"
                    ))
            }
            return problems
        }
    }
}
