/// Maps a method and a path to a handler. Patterns are `/`-separated segments: literals, `{name}` for one
/// segment, and a final `{name...}` for the rest of the path (may be empty). Literal segments win over
/// parameters, so `/users/me` and `/users/{id}` can live side by side.
///
/// ```swift
/// var router = Router()
/// router.add("POST", "/api/client/v2.0/app/{app}/functions/call") { request, parameters in
///     .json(["app": .string(parameters["app"] ?? "")])
/// }
/// ```
public struct Router: Sendable {
    /// Answers one request. A thrown `APIError` becomes its JSON error body; any other error a 500.
    public typealias Handler = @Sendable (ServerRequest, RouteParameters) async throws -> ServerResponse

    private struct Route: Sendable {
        let method: String
        let segments: [Segment]
        let handler: Handler
    }

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case rest(String)
    }

    private var routes: [Route] = []

    public init() {}

    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        let segments = Self.split(pattern).map { part -> Segment in
            guard part.hasPrefix("{"), part.hasSuffix("}") else { return .literal(part) }
            let name = String(part.dropFirst().dropLast())
            return name.hasSuffix("...") ? .rest(String(name.dropLast(3))) : .parameter(name)
        }
        routes.append(Route(method: method.uppercased(), segments: segments, handler: handler))
    }

    /// Every route of `other`, after this router's.
    public mutating func add(_ other: Router) {
        routes += other.routes
    }

    /// Runs the handler the request's method and path select: 404 when no pattern matches the path, 405 when
    /// patterns match but none for this method (a `HEAD` falls back to the `GET` route).
    public func respond(to request: ServerRequest) async -> ServerResponse {
        let path = Self.split(request.path)
        var best: (route: Route, parameters: RouteParameters, score: Int)?
        // Methods of the routes whose pattern matched, for a 405; a request that finds its route needs no set.
        var allowed: [String] = []
        // Clients send methods upper-cased: upper-casing again would cost every request a Unicode mapping.
        let method =
            request.method.utf8.allSatisfy({ !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) })
            ? request.method : request.method.uppercased()
        for route in routes {
            guard let (parameters, score) = Self.match(route.segments, path) else { continue }
            allowed.append(route.method)
            guard route.method == method || (method == "HEAD" && route.method == "GET") else { continue }
            if best == nil || score > best!.score || (score == best!.score && route.method == method) {
                best = (route, parameters, score)
            }
        }
        var logs: String { request.headers["host"].map { "http://\($0)/#logs" } ?? "" }
        guard let best else {
            if allowed.isEmpty {
                return APIError.notFound("no such endpoint: \(request.path)").response(defaultLink: logs)
            }
            return APIError.methodNotAllowed(request.method, request.path, allowed: Set(allowed).sorted())
                .response(defaultLink: logs)
        }
        do {
            return try await best.route.handler(request, best.parameters)
        } catch let error as APIError {
            return error.response(defaultLink: logs)
        } catch {
            return APIError.internalError("\(error)").response(defaultLink: logs)
        }
    }

    /// Split by bytes: splitting a `String` by `Character` runs grapheme breaking over the whole path.
    private static func split(_ path: String) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { String(Substring($0)) }
    }

    /// The parameters, and a score that prefers literal segments (higher is more specific). The literals are
    /// checked before any parameter is collected: most routes fail on one, and need no dictionary then.
    private static func match(_ segments: [Segment], _ path: [String]) -> (RouteParameters, Int)? {
        var score = 0
        var matchesAll = path.count == segments.count
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest:
                matchesAll = true
            case .literal(let literal):
                guard index < path.count, path[index] == literal else { return nil }
                score += 2
                continue
            case .parameter:
                guard index < path.count else { return nil }
                score += 1
                continue
            }
            break
        }
        guard matchesAll else { return nil }
        var parameters = RouteParameters()
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest(let name): parameters.values[name] = path.dropFirst(index).joined(separator: "/")
            case .parameter(let name): parameters.values[name] = path[index]
            case .literal: break
            }
        }
        return (parameters, score)
    }
}

/// The values of a route's `{name}` segments.
public struct RouteParameters: Sendable {
    var values: [String: String] = [:]

    public subscript(_ name: String) -> String? { values[name] }
}
