import BSON
import DocumentStore

extension SwitchyardApp {
    /// Calls a callable function as a client would: private functions are refused, the function's
    /// `canEvaluate` rule must match the call, and the function runs as `user` (or as the system user when its
    /// settings say `runAsSystem`), within its time limit, recorded in `invocations`.
    ///
    /// When the app configures custom user data, the user's document is read from that collection first. Past
    /// its time limit the call throws at once, whether or not the function notices its cancellation.
    /// - Parameters:
    ///   - request: what the rule sees as `%%request` (`remoteIPAddress`, `httpMethod`, …); made only for a
    ///     function that has a rule.
    /// - Throws: `FunctionCallError`, ready for the client API's `{"error", "error_code"}` answer; its message
    ///   never carries a secret value.
    nonisolated(nonsending) package func call(
        function name: String, arguments: [BSON] = [], user: FunctionUser,
        request: @autoclosure () -> BSONDocument = [:]
    ) async throws(FunctionCallError) -> BSON {
        let body = try callable(name)
        // One configuration for the whole call, taken once.
        let loaded = runtime.loaded
        let settings = loaded.settings(for: name)
        if settings.isPrivate {
            throw FunctionCallError(
                code: .privateFunction,
                message: "function '\(name)' is private: triggers and other functions may call it, clients may not")
        }
        var user = user
        let hasRule = !settings.canEvaluate.isEmpty
        if user.kind == .normal, let customUserData = loaded.definition.auth.customUserData, customUserData.enabled {
            // Replaced without comparing: comparing it with what the caller's token carried cost more than a new box.
            // Kept data is taken without an `await`, which would cost the call a switch back to its executor.
            // A rule decides who may call, so it reads the document as the store holds it now, never a kept copy.
            if !hasRule, let kept = customUserDataCache.kept(forUser: user.id, settings: customUserData) {
                user.customData = kept
            } else {
                user.customData = try await customData(
                    of: user, settings: customUserData, fresh: hasRule, function: name)
            }
        } else if user.kind == .normal, hasRule {
            // Without custom user data configured there is none: a rule never reads what a token still carries.
            user.customData = [:]
        }
        if hasRule {
            try Self.check(
                settings.canEvaluate, of: name, user: user, request: request(), arguments: arguments, loaded: loaded)
        }
        let origin = FunctionRuntime.Origin(function: name)
        let runAsSystem = settings.runAsSystem
        return try await runtime.run(
            origin, user: runAsSystem ? .system : user, runningAsSystem: runAsSystem, loaded: loaded, input: arguments,
            body
        ).value(of: name)
    }

    /// The callable function registered as `name`.
    func callable(_ name: String) throws(FunctionCallError) -> CallableFunction {
        guard let function = registry[name] else { throw .notFound(name) }
        guard case .callable(let body) = function else { throw .notCallable(name, kind: function.kind) }
        return body
    }

    /// Throws unless the function's `canEvaluate` rule allows the call. Out of line and synchronous: what the rule
    /// needs would otherwise be room in the frame of `call`, which every call allocates from its task.
    @inline(never)
    private static func check(
        _ rule: BSONDocument, of name: String, user: FunctionUser, request: BSONDocument, arguments: [BSON],
        loaded: FunctionRuntime.Loaded
    ) throws(FunctionCallError) {
        let call = CanEvaluateRule.callDocument(
            user: user, request: request, arguments: arguments, values: loaded.values.values,
            environment: loaded.environment.tag)
        let allowed: Bool
        do {
            allowed = try CanEvaluateRule(rule: rule).allows(call)
        } catch {
            throw FunctionCallError(
                code: .functionExecutionError,
                message: "the canEvaluate rule of function '\(name)' is not a valid query: \(error.message)")
        }
        guard allowed else {
            throw FunctionCallError(
                code: .permissionDenied, message: "rule not matched for function '\(name)' (see its canEvaluate)")
        }
    }

    /// The user's document in the configured custom user data collection (`auth.customUserData`); empty when
    /// none is configured or found. Kept between calls until that collection is next written.
    package func customUserData(forUser id: String) async throws -> BSONDocument {
        guard let settings = configuration.definition.auth.customUserData, settings.enabled else { return [:] }
        return try await customUserDataCache.document(forUser: id, settings: settings)
    }

    /// The user's document from the configured custom user data collection, read for `function`; `fresh` reads
    /// the store itself instead of a kept copy.
    nonisolated(nonsending) private func customData(
        of user: FunctionUser, settings: AuthSettings.CustomUserData, fresh: Bool, function: String
    )
        async throws(FunctionCallError) -> BSONDocument
    {
        do {
            if fresh { return try await customUserDataCache.storedDocument(forUser: user.id, settings: settings) }
            return try await customUserDataCache.document(forUser: user.id, settings: settings)
        } catch {
            throw FunctionCallError(
                code: .functionExecutionError,
                message:
                    "cannot read the custom user data of user '\(user.id)' from \(settings.database).\(settings.collection) for function '\(function)': \(error)",
                storageFailure: StoreError.storageFailure(causing: error))
        }
    }
}
