/// CORS for browser SDKs (Realm Web): web pages from this machine's origins (`http(s)://localhost`, `127.0.0.1`,
/// `[::1]`, any port) and from the app's allowed request origins (`allowedRequestOrigins` in `triggers.yaml`, App
/// Services' `allowed_request_origins`; `*` allows any) may use the client API, and `OPTIONS` preflights are
/// answered for every client API path. A request from any other origin is refused with 403 before its handler
/// runs: otherwise any page open in the developer's browser could make anonymous users and call functions (a
/// form post needs no preflight). Requests without an `Origin` (SDKs outside browsers) are served as before.
/// As middleware, it refuses before the handler runs and adds the headers to whatever answers.
struct CrossOriginPolicy: RouterMiddleware {
    static let allowedMethods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
    static let defaultAllowedHeaders = "Authorization, Content-Type, Accept, X-Requested-With"

    /// Configured origins, lower-cased and without a trailing slash.
    private let origins: Set<String>
    private let allowsAnyOrigin: Bool

    init(allowedOrigins: [String]) {
        allowsAnyOrigin = allowedOrigins.contains("*")
        origins = Set(allowedOrigins.map { Self.normalized(Substring($0)) })
    }

    /// What a request's `Origin` makes of it.
    enum Verdict {
        /// No `Origin`: not a browser's cross-origin request.
        case noOrigin
        case allowed(String)
        case refused(APIError)
    }

    func verdict(for request: ServerRequest) -> Verdict {
        guard let origin = request.headers["origin"] else { return .noOrigin }
        guard allows(origin) else {
            return .refused(
                APIError(
                    status: 403, code: "OriginNotAllowed",
                    message:
                        "web pages from '\(origin.prefix(200))' may not use this app (allowedRequestOrigins in triggers.yaml lists the origins that may)"
                ))
        }
        return .allowed(origin)
    }

    func allows(_ origin: String) -> Bool {
        if allowsAnyOrigin { return true }
        let origin = Self.normalized(Substring(origin))
        if origins.contains(origin) { return true }
        for scheme in ["http://", "https://"] where origin.hasPrefix(scheme) {
            return LoopbackHost.names(origin.dropFirst(scheme.count))
        }
        return false
    }

    nonisolated(nonsending) func handle(_ request: ServerRequest, _ parameters: RouteParameters, next: Router.Handler)
        async throws -> ServerResponse
    {
        let verdict = verdict(for: request)
        if case .refused(let error) = verdict { return error.response }
        // The handler's answer is this function's own, so the headers join it without a copy.
        var response = try await next(request, parameters)
        Self.apply(verdict, to: &response)
        return response
    }

    /// Adds `Access-Control-Allow-Origin` to an allowed request's answer: its origin, with `Vary: Origin` so that
    /// caches keep one answer per origin, or `*` when it names none (SDKs outside browsers).
    static func apply(_ verdict: Verdict, to response: inout ServerResponse) {
        switch verdict {
        case .noOrigin:
            response.headers.append(("Access-Control-Allow-Origin", "*"))
        case .allowed(let origin):
            response.headers.reserveCapacity(response.headers.count + 2)
            response.headers.append(("Access-Control-Allow-Origin", origin))
            response.headers.append(("Vary", "Origin"))
        case .refused:
            break
        }
    }

    /// 204 to an allowed origin's preflight, allowing the methods and the headers it asked for; 403 to others.
    func preflight(_ request: ServerRequest) -> ServerResponse {
        let verdict = verdict(for: request)
        if case .refused(let error) = verdict { return error.response }
        var response = ServerResponse.empty(status: 204)
        response.headers.append(("Access-Control-Allow-Methods", Self.allowedMethods))
        response.headers.append(
            (
                "Access-Control-Allow-Headers",
                request.headers["access-control-request-headers"] ?? Self.defaultAllowedHeaders
            ))
        response.headers.append(("Access-Control-Max-Age", "86400"))
        Self.apply(verdict, to: &response)
        return response
    }

    private static func normalized(_ origin: Substring) -> String {
        (origin.hasSuffix("/") ? origin.dropLast() : origin).lowercased()
    }
}
