/// Renders what the client API's handlers throw as App Services does: the error's body, with a `link` to this
/// server when the error names none (realm-core reads `link` as a string and drops an error without one). The
/// answer is a response rather than an error, so the CORS headers join it.
struct ClientErrorRendering: RouterMiddleware {
    nonisolated(nonsending) func handle(_ request: ServerRequest, _ parameters: RouteParameters, next: Router.Handler)
        async throws -> ServerResponse
    {
        do {
            return try await next(request, parameters)
        } catch {
            var failure = APIError.answering(error)
            if failure.link == nil { failure.link = "http://\(request.headers["host"] ?? "127.0.0.1")/" }
            return failure.response
        }
    }
}
