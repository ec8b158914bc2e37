/// Answers only clients on this machine (403 `Forbidden` to others): the admin API and the dashboard, which hold
/// the app's data and its admin token. With `requiresLoopbackHost`, the request must also name this machine in
/// its `Host` (`localhost`, `127.0.0.1`, `[::1]`, any port), which a web page that rebinds its own DNS name to
/// 127.0.0.1 cannot (see `Dashboard`).
struct LoopbackOnly: RouterMiddleware {
    /// What answers and whom, for the refusal: "the admin API" and "clients".
    let name: String
    let clients: String
    let requiresLoopbackHost: Bool

    init(_ name: String, answering clients: String = "clients", requiresLoopbackHost: Bool = false) {
        self.name = name
        self.clients = clients
        self.requiresLoopbackHost = requiresLoopbackHost
    }

    nonisolated(nonsending) func handle(_ request: ServerRequest, _ parameters: RouteParameters, next: Router.Handler)
        async throws -> ServerResponse
    {
        guard request.isLoopback else {
            throw APIError(
                status: 403, code: "Forbidden",
                message: "\(name) answers only \(clients) on this machine (loopback), not \(request.remoteAddress)")
        }
        if requiresLoopbackHost, let host = request.headers["host"], !LoopbackHost.names(Substring(host)) {
            throw APIError(
                status: 403, code: "Forbidden",
                message: "\(name) answers only requests for localhost, 127.0.0.1 or [::1], not '\(host)'")
        }
        return try await next(request, parameters)
    }
}
