#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// MongoDB's comparison order (the one `sort`, range queries, `$min`/`$max` and index keys use):
/// values of different types compare by a canonical type rank; numbers compare by value across int32,
/// int64, double and decimal128; NaN is below every other number; strings compare by UTF-8 bytes.
extension BSON {
    /// The rank of this value's type in MongoDB's cross-type order. Numbers share a rank, as do strings
    /// and symbols.
    public var canonicalTypeOrder: Int {
        switch self {
        case .minKey: -1
        case .undefined: 0
        case .null: 5
        case .double, .int32, .int64, .decimal128: 10
        case .string, .symbol: 15
        case .document: 20
        case .array: 25
        case .binary: 30
        case .objectId: 35
        case .bool: 40
        case .datetime: 45
        case .timestamp: 47
        case .regex: 50
        case .dbPointer: 55
        case .javascript: 60
        case .javascriptWithScope: 65
        case .maxKey: 127
        }
    }

    /// Negative, zero or positive as `lhs` sorts before, with, or after `rhs`.
    public static func compare(_ lhs: BSON, _ rhs: BSON) -> Int {
        let lhsRank = lhs.canonicalTypeOrder
        let rhsRank = rhs.canonicalTypeOrder
        if lhsRank != rhsRank { return lhsRank < rhsRank ? -1 : 1 }
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)), (.string(let a), .symbol(let b)),
            (.symbol(let a), .string(let b)), (.symbol(let a), .symbol(let b)),
            (.javascript(let a), .javascript(let b)):
            return compareBytes(a, b)
        case (.document(let a), .document(let b)):
            return compareDocuments(a, b)
        case (.array(let a), .array(let b)):
            for (x, y) in zip(a, b) {
                let c = compare(x, y)
                if c != 0 { return c }
            }
            return sign(a.count - b.count)
        case (.binary(let a), .binary(let b)):
            if a.data.count != b.data.count { return a.data.count < b.data.count ? -1 : 1 }
            if a.subtype != b.subtype { return a.subtype < b.subtype ? -1 : 1 }
            return compareSequences(a.data, b.data)
        case (.objectId(let a), .objectId(let b)):
            return a == b ? 0 : (a < b ? -1 : 1)
        case (.bool(let a), .bool(let b)):
            return a == b ? 0 : (!a ? -1 : 1)
        case (.datetime(let a), .datetime(let b)):
            return a == b ? 0 : (a < b ? -1 : 1)
        case (.timestamp(let a), .timestamp(let b)):
            return a == b ? 0 : (a < b ? -1 : 1)
        case (.regex(let a), .regex(let b)):
            let c = compareBytes(a.pattern, b.pattern)
            return c != 0 ? c : compareBytes(a.options, b.options)
        case (.dbPointer(let a), .dbPointer(let b)):
            // The server compares the namespace's length before its bytes.
            let (al, bl) = (a.namespace.utf8.count, b.namespace.utf8.count)
            if al != bl { return al < bl ? -1 : 1 }
            let c = compareBytes(a.namespace, b.namespace)
            return c != 0 ? c : (a.id == b.id ? 0 : (a.id < b.id ? -1 : 1))
        case (.javascriptWithScope(let a), .javascriptWithScope(let b)):
            let c = compareBytes(a.code, b.code)
            return c != 0 ? c : compareDocuments(a.scope, b.scope)
        default:
            if lhs.isNumber { return compareNumbers(lhs, rhs) }
            return 0  // minKey, maxKey, null, undefined: one value per type
        }
    }

    /// Equality in MongoDB's sense: `compare == 0` (so `int32(1)` equals `double(1.0)`).
    public static func equivalent(_ lhs: BSON, _ rhs: BSON) -> Bool {
        compare(lhs, rhs) == 0
    }

    static func compareDocuments(_ a: BSONDocument, _ b: BSONDocument) -> Int {
        for i in 0..<min(a.count, b.count) {
            let (ak, av) = a[i]
            let (bk, bv) = b[i]
            let rank = av.canonicalTypeOrder - bv.canonicalTypeOrder
            if rank != 0 { return sign(rank) }
            let key = compareBytes(ak, bk)
            if key != 0 { return key }
            let value = compare(av, bv)
            if value != 0 { return value }
        }
        return sign(a.count - b.count)
    }

    static func compareNumbers(_ lhs: BSON, _ rhs: BSON) -> Int {
        switch (lhs, rhs) {
        case (.int32(let a), .int32(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.int32, .int64), (.int64, .int32), (.int64, .int64):
            let a = lhs.int64Value!, b = rhs.int64Value!
            return a == b ? 0 : (a < b ? -1 : 1)
        case (.int32(let a), .double(let d)): return compareIntegerToDouble(Int64(a), d)
        case (.int64(let a), .double(let d)): return compareIntegerToDouble(a, d)
        case (.double(let d), .int32(let a)): return -compareIntegerToDouble(Int64(a), d)
        case (.double(let d), .int64(let a)): return -compareIntegerToDouble(a, d)
        case (.double(let a), .double(let b)): return compareDoubles(a, b)
        default:
            // At least one decimal: compare as decimals, a double rounded to 34 digits as MongoDB does.
            return Decimal128.compareValues(lhs.decimalForComparison, rhs.decimalForComparison)
        }
    }

    private var decimalForComparison: Decimal128 {
        switch self {
        case .decimal128(let d): d
        case .int32(let i): Decimal128(exactly: Int64(i))
        case .int64(let i): Decimal128(exactly: i)
        case .double(let d): Decimal128(roundingTo34Digits: d)
        default: .nan
        }
    }

    /// NaN sorts below every number and equals itself.
    static func compareDoubles(_ a: Double, _ b: Double) -> Int {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN ? 0 : (a.isNaN ? -1 : 1) }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    /// Exact comparison of an int64 with a double, without rounding the integer through Double.
    static func compareIntegerToDouble(_ i: Int64, _ d: Double) -> Int {
        if d.isNaN { return 1 }
        if d >= 9_223_372_036_854_775_808.0 { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return 1 }
        let truncated = Int64(d.rounded(.towardZero))
        if i != truncated { return i < truncated ? -1 : 1 }
        let fraction = d - d.rounded(.towardZero)
        return fraction == 0 ? 0 : (fraction > 0 ? -1 : 1)
    }

    static func compareBytes(_ a: String, _ b: String) -> Int {
        // Compared in place: going through the UTF-8 views byte by byte costs several times more.
        var (a, b) = (a, b)
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                if order != 0 { return order < 0 ? -1 : 1 }
                return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
            }
        }
    }

    static func compareSequences<A: Sequence, B: Sequence>(_ a: A, _ b: B) -> Int
    where A.Element == UInt8, B.Element == UInt8 {
        var ia = a.makeIterator()
        var ib = b.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?) where x != y: return x < y ? -1 : 1
            default: continue
            }
        }
    }

    private static func sign(_ x: Int) -> Int { x == 0 ? 0 : (x < 0 ? -1 : 1) }
}
