#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How `Router` finds a request's route: patterns parsed once into plain arrays, so that scanning the routes for
/// every request touches no reference counts, and paths compared as bytes where libmicrohttpd left them. Changed
/// only by `Router.add`, and only while no other router shares it (copy on write), so a table a server reads from
/// any thread is never changed: that is why it may be `@unchecked Sendable`.
final class RouteTable: @unchecked Sendable {
    /// What `find` found.
    enum Found {
        case route(Router.Handler, RouteParameters)
        case noPath
        case otherMethods(allowed: [String])
    }

    /// A handler in a struct: an array of bare functions holds them in their generic form, and each one read back
    /// comes inside a reabstraction thunk, one more async call for every request.
    private struct Responder {
        let handler: Router.Handler
    }

    private struct Route {
        let method: String
        let pattern: String
        let handler: Router.Handler
    }

    private enum Segment {
        case literal([UInt8])
        case parameter(String)
        case rest(String)
    }

    /// What matching needs of a route, held apart from it in plain values.
    private struct Pattern {
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
    private struct ParameterSlot {
        var segment: Int
        var name: String
        var isRest: Bool
    }

    /// One literal segment of a pattern: its index among the pattern's segments and its bytes in `literalBytes`.
    private struct Literal {
        var segment: Int
        var bytes: Range<Int>
    }

    // Exclusivity unchecked: a table is changed only while its router holds the one reference (copied on write),
    // before it serves; each checked read cost every request more than matching its path.
    /// As added, for `copy()`.
    @exclusivity(unchecked) private var routes: [Route] = []
    /// By route: its method and its handler, held apart so that a look-up copies no whole route.
    @exclusivity(unchecked) private var methods: [String] = []
    @exclusivity(unchecked) private var methodKeys: [MethodKey] = []
    @exclusivity(unchecked) private var handlers: [Responder] = []
    @exclusivity(unchecked) private var patterns: [Pattern] = []
    @exclusivity(unchecked) private var literals: [Literal] = []
    @exclusivity(unchecked) private var literalBytes: [UInt8] = []
    @exclusivity(unchecked) private var parameterSlots: [ParameterSlot] = []
    /// By a path's segment count, the routes (in order) that can match it; the last entry, for longer paths,
    /// holds the routes ending in `{name...}`.
    @exclusivity(unchecked) private var candidates: [[Int]] = [[]]

    func copy() -> RouteTable {
        let copy = RouteTable()
        for route in routes { copy.add(route.method, route.pattern, route.handler) }
        return copy
    }

    func add(_ method: String, _ text: String, _ handler: @escaping Router.Handler) {
        let segments = text.utf8.split(separator: UInt8(ascii: "/")).map { bytes -> Segment in
            let part = String(Substring(bytes))
            guard part.hasPrefix("{"), part.hasSuffix("}") else { return .literal(Array(bytes)) }
            let name = String(part.dropFirst().dropLast())
            return name.hasSuffix("...") ? .rest(String(name.dropLast(3))) : .parameter(name)
        }
        let method = method.uppercased()
        let firstLiteral = literals.count
        let firstParameter = parameterSlots.count
        var score = 0
        var endsWithRest = false
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .literal(let bytes):
                literals.append(
                    Literal(segment: index, bytes: literalBytes.count..<literalBytes.count + bytes.count))
                literalBytes += bytes
                score += 2
            case .parameter(let name):
                parameterSlots.append(ParameterSlot(segment: index, name: name, isRest: false))
                score += 1
            case .rest(let name):
                parameterSlots.append(ParameterSlot(segment: index, name: name, isRest: true))
                endsWithRest = true
            }
        }
        let pattern = Pattern(
            fixedCount: segments.count - (endsWithRest ? 1 : 0), endsWithRest: endsWithRest, score: score,
            literalRange: firstLiteral..<literals.count, parameterRange: firstParameter..<parameterSlots.count)
        routes.append(Route(method: method, pattern: text, handler: handler))
        methods.append(method)
        methodKeys.append(MethodKey(method))
        handlers.append(Responder(handler: handler))
        patterns.append(pattern)
        // One list per count up to the longest pattern, and one for longer paths.
        while candidates.count < pattern.fixedCount + 2 { candidates.append(candidates[candidates.count - 1]) }
        for count in candidates.indices {
            let fits = pattern.endsWithRest ? count >= pattern.fixedCount : count == pattern.fixedCount
            if fits { candidates[count].append(patterns.count - 1) }
        }
    }

    /// The best route for `method` and `path` (as the request spelled them), and its parameters.
    func find(_ method: String, _ path: String) -> Found {
        let key = MethodKey(method)
        var path = path
        return path.withUTF8 { bytes in PathSegments.with(bytes) { find(key, method, $0) } }
    }

    private func find(_ method: MethodKey, _ name: String, _ path: PathSegments) -> Found {
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
                if let best { return .route(handlers[best.index].handler, parameters(best.index, path)) }
                guard pathMatched else { return .noPath }
                return .otherMethods(allowed: Set(candidates.filter(matches).map { methods[$0] }).sorted())
            }
        }
    }

    /// Whether a route's literals (`range` of `literals`) are the path's segments at their places (the count fits
    /// already). Compared as bytes, straight from the request's path, last first: routes share their leading
    /// literals (`/api/client/v2.0/app/…`) and differ at the end.
    private static func matches(
        _ range: Range<Int>, _ path: PathSegments, literals: UnsafeBufferPointer<Literal>,
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
    static func with(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (PathSegments) -> RouteTable.Found)
        -> RouteTable.Found
    {
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
private struct MethodKey: Equatable {
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
