/// Who may use the admin API (behind `LoopbackOnly`): clients holding the token made at start (401
/// `InvalidSession` otherwise). What its handlers throw reaches the client as the HTTP error it can act on
/// (`AdminAPI.apiError`).
struct AdminAccess: RouterMiddleware {
    let token: AdminToken

    nonisolated(nonsending) func handle(_ request: ServerRequest, _ parameters: RouteParameters, next: Router.Handler)
        async throws -> ServerResponse
    {
        guard let given = request.bearerToken else {
            throw APIError(
                status: 401, code: "InvalidSession",
                message:
                    "the admin API needs 'Authorization: Bearer <token>' with the token switchyard serve printed (also in <data-dir>/admin.token)"
            )
        }
        guard token.matches(given) else {
            throw APIError(
                status: 401, code: "InvalidSession",
                message:
                    "invalid admin token: use the one this run of switchyard serve printed (it changes at every start)")
        }
        do {
            return try await next(request, parameters)
        } catch {
            throw AdminAPI.apiError(error)
        }
    }
}
