/// CORS for browser SDKs (Realm Web): every client API answer allows any origin, and `OPTIONS` preflights are
/// answered for every client API path. Credentials travel in `Authorization` headers, never cookies, so allowing
/// any origin exposes nothing a page could not already send.
struct CrossOriginPolicy: Sendable {
    static let allowedMethods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
    static let defaultAllowedHeaders = "Authorization, Content-Type, Accept, X-Requested-With"

    /// Adds `Access-Control-Allow-Origin` to an answer: the request's origin, with `Vary: Origin` so that caches
    /// keep one answer per origin, or `*` when the request names none (SDKs outside browsers), which suits any
    /// origin a cache might hand it to.
    static func apply(to response: inout ServerResponse, for request: ServerRequest) {
        guard let origin = request.headers["origin"] else {
            response.headers.append(("Access-Control-Allow-Origin", "*"))
            return
        }
        response.headers.reserveCapacity(response.headers.count + 2)
        response.headers.append(("Access-Control-Allow-Origin", origin))
        response.headers.append(("Vary", "Origin"))
    }

    /// 204 to a preflight, allowing the methods and the headers it asked for.
    static func preflight(_ request: ServerRequest) -> ServerResponse {
        var response = ServerResponse.empty(status: 204)
        response.headers.append(("Access-Control-Allow-Methods", allowedMethods))
        response.headers.append(
            ("Access-Control-Allow-Headers", request.headers["access-control-request-headers"] ?? defaultAllowedHeaders)
        )
        response.headers.append(("Access-Control-Max-Age", "86400"))
        apply(to: &response, for: request)
        return response
    }
}
