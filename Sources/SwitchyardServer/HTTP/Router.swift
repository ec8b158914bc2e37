/// Maps a method and a path to a handler. Patterns are `/`-separated segments: literals, `{name}` for one
/// segment, and a final `{name...}` for the rest of the path (may be empty). Literal segments win over
/// parameters, so `/users/me` and `/users/{id}` can live side by side. Routes that share a prefix and middleware
/// come in as a `RouterGroup`; how paths are matched is `RouteTable`'s business.
///
/// ```swift
/// var router = Router()
/// router.add("GET", "/health") { _, _ in .text("ok") }
/// var api = RouterGroup("/api/client/v2.0", middleware: [CrossOriginMiddleware(policy)])
/// api.add("POST", "/app/{app}/functions/call") { request, parameters in
///     .json(["app": .string(parameters["app"] ?? "")])
/// }
/// router.add(api)
/// ```
package struct Router: Sendable {
    /// Answers one request. A thrown `APIError` becomes its JSON error body; any other error a 500. It runs on
    /// its caller's executor (`nonisolated(nonsending)`), as do the middleware and the functions a served call
    /// goes through, so that a request that never waits is answered on the thread that read it.
    package typealias Handler =
        nonisolated(nonsending) @Sendable (ServerRequest, RouteParameters) async throws
        -> ServerResponse

    /// What routing a request found: an answer already (404, 405), or the handler to run (`run` runs it).
    enum Routing {
        case answered(ServerResponse)
        case handler(Handler, RouteParameters)
    }

    /// Copied on write: a router handed to a server is never changed again, and copying it costs one retain.
    private var table = RouteTable()

    package init() {}

    package mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        if !isKnownUniquelyReferenced(&table) { table = table.copy() }
        table.add(method, pattern, handler)
    }

    /// Every route of `group`, with its prefix and middleware.
    package mutating func add(_ group: RouterGroup) {
        for route in group.routes { add(route.method, route.pattern, route.handler) }
    }

    /// Runs the handler the request's method and path select: 404 when no pattern matches the path, 405 when
    /// patterns match but none for this method (a `HEAD` falls back to the `GET` route).
    package func respond(to request: ServerRequest) async -> ServerResponse {
        switch route(request) {
        case .answered(let response): response
        case .handler(let handler, let parameters): await Self.run(handler, request, parameters)
        }
    }

    /// Runs a handler, rendering what it throws. Inlined into its callers: a call of its own would cost each
    /// request an `await`, with a frame and a switch back to the executor.
    @inline(__always)
    nonisolated(nonsending) static func run(
        _ handler: Handler, _ request: ServerRequest, _ parameters: RouteParameters
    ) async -> ServerResponse {
        do {
            return try await handler(request, parameters)
        } catch {
            return APIError.answering(error).response(defaultLink: logsLink(request.headers))
        }
    }

    /// Selects the route; a path no route has (404) or a method it does not allow (405) is answered at once.
    func route(_ request: ServerRequest) -> Routing {
        switch table.find(request.method, request.path) {
        case .route(let handler, let parameters):
            return .handler(handler, parameters)
        case .noPath:
            return .answered(
                APIError.notFound("no such endpoint: \(request.path)")
                    .response(defaultLink: Self.logsLink(request.headers)))
        case .otherMethods(let allowed):
            return .answered(
                APIError.methodNotAllowed(request.method, request.path, allowed: allowed)
                    .response(defaultLink: Self.logsLink(request.headers)))
        }
    }

    /// Where the dashboard shows the logs, as the client reached the server.
    static func logsLink(_ headers: RequestHeaders) -> String {
        headers["host"].map { "http://\($0)/#logs" } ?? ""
    }
}
