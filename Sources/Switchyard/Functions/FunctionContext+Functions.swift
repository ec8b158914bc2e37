import BSON

extension FunctionContext {
    /// Runs the app's callable functions from a function, as part of the same invocation (its log and time
    /// limit), as the same user. Private functions may be called this way.
    public struct Functions: Sendable {
        let runtime: FunctionRuntime
        /// The configuration the invocation started with.
        let loaded: FunctionRuntime.Loaded
        let user: FunctionUser
        let runningAsSystem: Bool
        let depth: Int
        let lines: InvocationLogLines

        /// Runs the callable function `name` with `arguments` and returns its result.
        public func execute(_ name: String, _ arguments: BSON...) async throws -> BSON {
            try await execute(name, arguments: arguments)
        }

        public func execute(_ name: String, arguments: [BSON]) async throws -> BSON {
            guard depth < FunctionContext.maximumCallDepth else {
                throw FunctionCallError(
                    code: .callDepthExceeded,
                    message:
                        "functions.execute('\(name)'): more than \(FunctionContext.maximumCallDepth) nested function calls (does a function call itself without end?)"
                )
            }
            guard let function = runtime.registry[name] else { throw FunctionCallError.notFound(name) }
            guard case .callable(let body) = function else {
                throw FunctionCallError.notCallable(name, kind: function.kind)
            }
            let settings = loaded.definition.functions[name] ?? FunctionSettings()
            let context = FunctionContext(
                runtime: runtime, loaded: loaded, user: user, runningAsSystem: runningAsSystem || settings.runAsSystem,
                depth: depth + 1, lines: lines)
            guard let coverage = runtime.coverage else { return try await body(arguments, context) }
            do {
                let value = try await body(arguments, context)
                coverage.recordCall(function: name, failed: false)
                return value
            } catch {
                coverage.recordCall(function: name, failed: true)
                throw error
            }
        }
    }
}
