#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Maps a method and a path to a handler. Patterns are `/`-separated segments: literals, `{name}` for one
/// segment, and a final `{name...}` for the rest of the path (may be empty). Literal segments win over
/// parameters, so `/users/me` and `/users/{id}` can live side by side.
///
/// ```swift
/// var router = Router()
/// router.add("POST", "/api/client/v2.0/app/{app}/functions/call") { request, parameters in
///     .json(["app": .string(parameters["app"] ?? "")])
/// }
/// router.add("GET", "/health", immediately: { _, _ in .text("ok") })
/// ```
public struct Router: Sendable {
    /// Answers one request. A thrown `APIError` becomes its JSON error body; any other error a 500. It runs on
    /// its caller's executor (`nonisolated(nonsending)`), as do the functions a served call goes through: each
    /// switch to the global executor and back cost a request a lock of its task's status, about a tenth of a call.
    public typealias Handler =
        nonisolated(nonsending) @Sendable (ServerRequest, RouteParameters) async throws
        -> ServerResponse
    /// Answers one request without waiting for anything: the server calls it on the thread that read the
    /// request, without starting a task.
    public typealias ImmediateHandler = @Sendable (ServerRequest, RouteParameters) throws -> ServerResponse

    fileprivate enum Action: Sendable {
        case immediate(ImmediateHandler)
        case deferred(Handler)
    }

    fileprivate struct Route: Sendable {
        let method: String
        let segments: [Segment]
        let action: Action
    }

    fileprivate enum Segment: Sendable {
        case literal([UInt8])
        case parameter(String)
        case rest(String)
    }

    /// What matching needs of a route, held apart from it in plain values: scanning every route for every
    /// request then touches no reference counts.
    fileprivate struct Pattern: Sendable {
        /// Path segments the pattern needs (a final `{name...}` needs none).
        var fixedCount: Int
        var endsWithRest: Bool
        /// 2 per literal segment, 1 per parameter: literals win.
        var score: Int
        /// The pattern's literals in `literals`.
        var literalRange: Range<Int>
        /// The pattern's parameters in `parameterSlots`.
        var parameterRange: Range<Int>
    }

    /// Where a parameter's value is in the path: one segment, or (`isRest`) all from there on.
    fileprivate struct ParameterSlot: Sendable {
        var segment: Int
        var name: String
        var isRest: Bool
    }

    /// One literal segment of a pattern: its index among the pattern's segments and its bytes in `literalBytes`.
    fileprivate struct Literal: Sendable {
        var segment: Int
        var bytes: Range<Int>
    }

    /// What routing a request found: an answer already, or the handler still to run (`run` runs it).
    enum Routing {
        case answered(ServerResponse)
        case deferred(Handler, RouteParameters)
    }

    /// Copied on write: a router handed to a server is never changed again, and copying it costs one retain.
    private var table = RouteTable()

    public init() {}

    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        add(method, pattern, .deferred(handler))
    }

    /// A route whose handler never waits (no `await`): it answers on the server's thread without a task, the
    /// cheapest way to answer.
    public mutating func add(_ method: String, _ pattern: String, immediately handler: @escaping ImmediateHandler) {
        add(method, pattern, .immediate(handler))
    }

    private mutating func add(_ method: String, _ pattern: String, _ action: Action) {
        let segments = pattern.utf8.split(separator: UInt8(ascii: "/")).map { bytes -> Segment in
            let part = String(Substring(bytes))
            guard part.hasPrefix("{"), part.hasSuffix("}") else { return .literal(Array(bytes)) }
            let name = String(part.dropFirst().dropLast())
            return name.hasSuffix("...") ? .rest(String(name.dropLast(3))) : .parameter(name)
        }
        add(Route(method: method.uppercased(), segments: segments, action: action))
    }

    private mutating func add(_ route: Route) {
        if !isKnownUniquelyReferenced(&table) { table = table.copy() }
        table.add(route)
    }

    /// Every route of `other`, after this router's.
    public mutating func add(_ other: Router) {
        for route in other.table.routes { add(route) }
    }

    /// Runs the handler the request's method and path select: 404 when no pattern matches the path, 405 when
    /// patterns match but none for this method (a `HEAD` falls back to the `GET` route).
    public func respond(to request: ServerRequest) async -> ServerResponse {
        switch route(request) {
        case .answered(let response): response
        case .deferred(let handler, let parameters): await Self.run(handler, request, parameters)
        }
    }

    /// Runs a deferred handler, rendering what it throws. Inlined into its callers: a call of its own would cost
    /// each request an `await`, with a frame and a switch back to the executor.
    @inline(__always)
    nonisolated(nonsending) static func run(
        _ handler: Handler, _ request: ServerRequest, _ parameters: RouteParameters
    ) async -> ServerResponse {
        do {
            return try await handler(request, parameters)
        } catch {
            return render(error, for: request)
        }
    }

    /// Selects the route; an immediate handler (and a 404 or 405) answers at once.
    func route(_ request: ServerRequest) -> Routing {
        let name = request.method
        let method = MethodKey(name)
        let table = table
        var path = request.path
        let found = path.withUTF8 { bytes in PathSegments.with(bytes) { table.find(method, name, $0) } }
        let (index, parameters): (Int, RouteParameters)
        switch found {
        case .route(let route, let values):
            (index, parameters) = (route, values)
        case .noPath:
            return .answered(
                APIError.notFound("no such endpoint: \(request.path)").response(defaultLink: Self.logsLink(request)))
        case .otherMethods(let allowed):
            return .answered(
                APIError.methodNotAllowed(request.method, request.path, allowed: allowed)
                    .response(defaultLink: Self.logsLink(request)))
        }
        switch table.actions[index] {
        case .immediate(let handler):
            do {
                return .answered(try handler(request, parameters))
            } catch {
                return .answered(Self.render(error, for: request))
            }
        case .deferred(let handler):
            return .deferred(handler, parameters)
        }
    }

    fileprivate enum Found {
        case route(Int, RouteParameters)
        case noPath
        case otherMethods(allowed: [String])
    }

    private static func render(_ error: any Error, for request: ServerRequest) -> ServerResponse {
        APIError.answering(error).response(defaultLink: logsLink(request))
    }

    private static func logsLink(_ request: ServerRequest) -> String {
        logsLink(request.headers)
    }

    /// Where the dashboard shows the logs, as the client reached the server.
    static func logsLink(_ headers: RequestHeaders) -> String {
        headers["host"].map { "http://\($0)/#logs" } ?? ""
    }

}

/// A path's non-empty `/`-separated segments, as byte ranges of the path (no string per segment).
private struct PathSegments {
    let bytes: UnsafeBufferPointer<UInt8>
    let ranges: UnsafeBufferPointer<Range<Int>>

    var count: Int { ranges.count }

    subscript(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[ranges[index]])
    }

    /// Segments from `index` on, joined by single slashes.
    func rest(from index: Int) -> String {
        (index..<count).map { String(decoding: self[$0], as: UTF8.self) }.joined(separator: "/")
    }

    /// Splits `bytes` into ranges held on the stack (paths are short; a longer one gets a heap array), in one pass
    /// from slash to slash (`memchr`): a loop over every byte cost a request more than matching its routes.
    static func with(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (PathSegments) -> Router.Found) -> Router.Found {
        // Non-empty segments need a byte each and a slash between them.
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: (bytes.count + 1) / 2) { buffer in
            guard let base = bytes.baseAddress else { return body(PathSegments(bytes: bytes, ranges: .init(buffer))) }
            var count = 0
            var start = 0
            while start < bytes.count {
                let slash = memchr(base + start, Int32(UInt8(ascii: "/")), bytes.count - start)
                let end = slash.map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? bytes.count
                if end > start {
                    buffer.initializeElement(at: count, to: start..<end)
                    count += 1
                }
                start = end + 1
            }
            return body(PathSegments(bytes: bytes, ranges: UnsafeBufferPointer(rebasing: buffer[0..<count])))
        }
    }
}

/// A method as one integer, its bytes upper-cased: compared without a string comparison, which cost a request more
/// than matching its path. Methods longer than eight bytes (no standard one is) are compared as strings.
fileprivate struct MethodKey: Equatable {
    private let bits: UInt64
    /// Whether the key holds the whole method.
    let isComplete: Bool

    init(_ method: String) {
        var bits: UInt64 = 0
        var count = 0
        for byte in method.utf8 {
            guard count < 8 else { break }
            let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte & ~0x20 : byte
            bits |= UInt64(upper) << (8 * count)
            count += 1
        }
        self.bits = bits
        isComplete = method.utf8.count <= 8
    }

    static let get = MethodKey("GET")
    static let head = MethodKey("HEAD")
}

/// The values of a route's `{name}` segments.
public struct RouteParameters: Sendable {
    /// In pattern order; a route has few, so a search beats hashing.
    var values: [(name: String, value: String)] = []

    public subscript(_ name: String) -> String? { values.first { $0.name == name }?.value }
}

/// What matching reads, in plain arrays: scanning the routes for every request touches no reference counts.
/// Changed only by `Router.add`, and only while no other router shares it (copy on write), so a table a server
/// reads from any thread is never changed: that is why it may be `@unchecked Sendable`.
private final class RouteTable: @unchecked Sendable {
    // Exclusivity unchecked: a table is changed only while its router holds the one reference (copied on write),
    // before it serves; each checked read cost every request more than matching its path.
    /// As added, for `Router.add(_ other:)`.
    @exclusivity(unchecked) private(set) var routes: [Router.Route] = []
    /// By route: its method and its handler, held apart so that a look-up copies no whole route.
    @exclusivity(unchecked) private(set) var methods: [String] = []
    @exclusivity(unchecked) private var methodKeys: [MethodKey] = []
    @exclusivity(unchecked) private(set) var actions: [Router.Action] = []
    @exclusivity(unchecked) private var patterns: [Router.Pattern] = []
    @exclusivity(unchecked) private var literals: [Router.Literal] = []
    @exclusivity(unchecked) private var literalBytes: [UInt8] = []
    @exclusivity(unchecked) private var parameterSlots: [Router.ParameterSlot] = []
    /// By a path's segment count, the routes (in order) that can match it; the last entry, for longer paths,
    /// holds the routes ending in `{name...}`.
    @exclusivity(unchecked) private var candidates: [[Int]] = [[]]

    func copy() -> RouteTable {
        let copy = RouteTable()
        for route in routes { copy.add(route) }
        return copy
    }

    func add(_ route: Router.Route) {
        let firstLiteral = literals.count
        let firstParameter = parameterSlots.count
        var score = 0
        var endsWithRest = false
        for (index, segment) in route.segments.enumerated() {
            switch segment {
            case .literal(let bytes):
                literals.append(
                    Router.Literal(segment: index, bytes: literalBytes.count..<literalBytes.count + bytes.count))
                literalBytes += bytes
                score += 2
            case .parameter(let name):
                parameterSlots.append(Router.ParameterSlot(segment: index, name: name, isRest: false))
                score += 1
            case .rest(let name):
                parameterSlots.append(Router.ParameterSlot(segment: index, name: name, isRest: true))
                endsWithRest = true
            }
        }
        let pattern = Router.Pattern(
            fixedCount: route.segments.count - (endsWithRest ? 1 : 0), endsWithRest: endsWithRest, score: score,
            literalRange: firstLiteral..<literals.count, parameterRange: firstParameter..<parameterSlots.count)
        routes.append(route)
        methods.append(route.method)
        methodKeys.append(MethodKey(route.method))
        actions.append(route.action)
        patterns.append(pattern)
        // One list per count up to the longest pattern, and one for longer paths.
        while candidates.count < pattern.fixedCount + 2 { candidates.append(candidates[candidates.count - 1]) }
        for count in candidates.indices {
            let fits = pattern.endsWithRest ? count >= pattern.fixedCount : count == pattern.fixedCount
            if fits { candidates[count].append(patterns.count - 1) }
        }
    }

    /// The best route for `method` (`name` as the request spelled it) and `path`.
    func find(_ method: MethodKey, _ name: String, _ path: PathSegments) -> Router.Found {
        let candidates = candidates[min(path.count, candidates.count - 1)]
        // A method too long for its key is compared as a string, upper-cased.
        let upperCased = method.isComplete ? "" : name.uppercased()
        return literals.withUnsafeBufferPointer { literals in
            literalBytes.withUnsafeBufferPointer { literalBytes in
                func matches(_ index: Int) -> Bool {
                    Self.matches(patterns[index].literalRange, path, literals: literals, literalBytes: literalBytes)
                }
                var best: (index: Int, score: Int)?
                var pathMatched = false
                for index in candidates where matches(index) {
                    pathMatched = true
                    let exact = method.isComplete ? methodKeys[index] == method : methods[index] == upperCased
                    guard exact || (method == .head && methodKeys[index] == .get) else { continue }
                    let score = patterns[index].score
                    if best == nil || score > best!.score || (score == best!.score && exact) {
                        best = (index, score)
                    }
                }
                if let best { return .route(best.index, parameters(best.index, path)) }
                guard pathMatched else { return .noPath }
                return .otherMethods(allowed: Set(candidates.filter(matches).map { methods[$0] }).sorted())
            }
        }
    }

    /// Whether a route's literals (`range` of `literals`) are the path's segments at their places (the count fits
    /// already). Compared as bytes, straight from the request's path, last first: routes share their leading
    /// literals (`/api/client/v2.0/app/…`) and differ at the end.
    private static func matches(
        _ range: Range<Int>, _ path: PathSegments, literals: UnsafeBufferPointer<Router.Literal>,
        literalBytes: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        var index = range.upperBound
        while index > range.lowerBound {
            index -= 1
            let literal = literals[index]
            let segment = path[literal.segment]
            // Segments and literals are never empty; most mismatches differ in length or first byte, before a call.
            guard segment.count == literal.bytes.count, segment[0] == literalBytes[literal.bytes.lowerBound],
                memcmp(segment.baseAddress!, literalBytes.baseAddress! + literal.bytes.lowerBound, segment.count) == 0
            else { return false }
        }
        return true
    }

    /// The matched route's parameters: the only strings made from the path.
    private func parameters(_ index: Int, _ path: PathSegments) -> RouteParameters {
        var parameters = RouteParameters()
        let slots = parameterSlots[patterns[index].parameterRange]
        guard !slots.isEmpty else { return parameters }
        parameters.values.reserveCapacity(slots.count)
        for slot in slots {
            let value =
                slot.isRest ? path.rest(from: slot.segment) : String(decoding: path[slot.segment], as: UTF8.self)
            parameters.values.append((slot.name, value))
        }
        return parameters
    }
}
