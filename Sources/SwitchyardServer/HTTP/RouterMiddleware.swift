/// What wraps the handlers of a `RouterGroup`, as hummingbird's `RouterMiddleware` does: it sees the request
/// before the handler, may answer in its place (a refused origin, a missing token), and sees the handler's answer
/// or error after it. A group's middleware runs in the order given, the first outermost.
///
/// ```swift
/// struct Timing: RouterMiddleware {
///     func handle(_ request: ServerRequest, _ parameters: RouteParameters, next: Router.Handler) async throws
///         -> ServerResponse
///     {
///         var response = try await next(request, parameters)
///         response.headers.append(("Server-Timing", "app"))
///         return response
///     }
/// }
/// ```
package protocol RouterMiddleware: Sendable {
    /// Answers `request`, calling `next` (the rest of the chain and the handler) when it lets the request through.
    /// It runs on its caller's executor, as handlers do (see `Router.Handler`).
    nonisolated(nonsending) func handle(_ request: ServerRequest, _ parameters: RouteParameters, next: Router.Handler)
        async throws -> ServerResponse

    /// `handler` wrapped by this middleware; given below. A requirement, so that a group holding its middleware
    /// as `any RouterMiddleware` wraps with each type's own copy, which calls its `handle` directly: the generic
    /// copy called it through the witness table, one more async call for every request.
    func wrapping(_ handler: @escaping Router.Handler) -> Router.Handler
}

extension RouterMiddleware {
    package func wrapping(_ handler: @escaping Router.Handler) -> Router.Handler {
        { request, parameters in try await handle(request, parameters, next: handler) }
    }
}
