/// One BSON value. Every type of the BSON specification, including the deprecated ones, so that documents
/// read from files or the wire are written back unchanged.
///
/// `==` is exact: the same type and the same bits (`int32(1) != double(1)`, `-0.0 != 0.0`), except that every
/// NaN equals every NaN of its type, whatever its sign or payload, since Extended JSON prints them all alike.
/// MongoDB's comparison, where numbers compare by value across types, is `BSON.compare(_:_:)`.
public enum BSON: Sendable {
    case double(Double)
    case string(String)
    case document(BSONDocument)
    case array([BSON])
    case binary(BSONBinary)
    case undefined
    case objectId(ObjectId)
    case bool(Bool)
    case datetime(BSONDate)
    case null
    case regex(BSONRegularExpression)
    case dbPointer(BSONDBPointer)
    case javascript(String)
    case symbol(String)
    case javascriptWithScope(BSONCodeWithScope)
    case int32(Int32)
    case timestamp(BSONTimestamp)
    case int64(Int64)
    case decimal128(Decimal128)
    case minKey
    case maxKey
}

extension BSON {
    /// The type byte used in BSON binary and by `$type`.
    public var typeByte: UInt8 {
        switch self {
        case .double: 0x01
        case .string: 0x02
        case .document: 0x03
        case .array: 0x04
        case .binary: 0x05
        case .undefined: 0x06
        case .objectId: 0x07
        case .bool: 0x08
        case .datetime: 0x09
        case .null: 0x0A
        case .regex: 0x0B
        case .dbPointer: 0x0C
        case .javascript: 0x0D
        case .symbol: 0x0E
        case .javascriptWithScope: 0x0F
        case .int32: 0x10
        case .timestamp: 0x11
        case .int64: 0x12
        case .decimal128: 0x13
        case .minKey: 0xFF
        case .maxKey: 0x7F
        }
    }

    /// The alias `$type` and error messages use ("double", "objectId", …).
    public var typeName: String {
        switch self {
        case .double: "double"
        case .string: "string"
        case .document: "object"
        case .array: "array"
        case .binary: "binData"
        case .undefined: "undefined"
        case .objectId: "objectId"
        case .bool: "bool"
        case .datetime: "date"
        case .null: "null"
        case .regex: "regex"
        case .dbPointer: "dbPointer"
        case .javascript: "javascript"
        case .symbol: "symbol"
        case .javascriptWithScope: "javascriptWithScope"
        case .int32: "int"
        case .timestamp: "timestamp"
        case .int64: "long"
        case .decimal128: "decimal"
        case .minKey: "minKey"
        case .maxKey: "maxKey"
        }
    }

    public var documentValue: BSONDocument? {
        if case .document(let d) = self { return d }
        return nil
    }

    public var arrayValue: [BSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var objectIdValue: ObjectId? {
        if case .objectId(let o) = self { return o }
        return nil
    }

    /// True for int32, int64, double and decimal128.
    public var isNumber: Bool {
        switch self {
        case .int32, .int64, .double, .decimal128: true
        default: false
        }
    }

    /// The value as a Double, for numbers of any BSON type.
    public var doubleValue: Double? {
        switch self {
        case .double(let d): d
        case .int32(let i): Double(i)
        case .int64(let i): Double(i)
        case .decimal128(let d): d.doubleValue
        default: nil
        }
    }

    /// The value as an Int64 when it is a whole number that fits (int32, int64, or an integral double).
    public var int64Value: Int64? {
        switch self {
        case .int32(let i): Int64(i)
        case .int64(let i): i
        case .double(let d): Int64(exactly: d)
        case .decimal128(let d): d.int64Value
        default: nil
        }
    }
}

extension BSON: Equatable {
    public static func == (lhs: BSON, rhs: BSON) -> Bool {
        switch (lhs, rhs) {
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): BSONDocument.FieldName.same(a, b)
        case (.document(let a), .document(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.binary(let a), .binary(let b)): a == b
        case (.undefined, .undefined), (.null, .null), (.minKey, .minKey), (.maxKey, .maxKey): true
        case (.objectId(let a), .objectId(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.datetime(let a), .datetime(let b)): a == b
        case (.regex(let a), .regex(let b)): a == b
        case (.dbPointer(let a), .dbPointer(let b)): a == b
        case (.javascript(let a), .javascript(let b)): BSONDocument.FieldName.same(a, b)
        case (.symbol(let a), .symbol(let b)): BSONDocument.FieldName.same(a, b)
        case (.javascriptWithScope(let a), .javascriptWithScope(let b)): a == b
        case (.int32(let a), .int32(let b)): a == b
        case (.timestamp(let a), .timestamp(let b)): a == b
        case (.int64(let a), .int64(let b)): a == b
        case (.decimal128(let a), .decimal128(let b)): a == b || (a.parts == .nan && b.parts == .nan)
        default: false
        }
    }
}

extension BSON: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(typeByte)
        switch self {
        case .double(let d): hasher.combine(d.isNaN ? Double.nan.bitPattern : d.bitPattern)
        case .string(let s), .javascript(let s), .symbol(let s): hasher.combine(Array(s.utf8))
        case .document(let d): hasher.combine(d)
        case .array(let a): hasher.combine(a)
        case .binary(let b): hasher.combine(b)
        case .undefined, .null, .minKey, .maxKey: break
        case .objectId(let o): hasher.combine(o)
        case .bool(let b): hasher.combine(b)
        case .datetime(let d): hasher.combine(d)
        case .regex(let r): hasher.combine(r)
        case .dbPointer(let p): hasher.combine(p)
        case .javascriptWithScope(let c): hasher.combine(c)
        case .int32(let i): hasher.combine(i)
        case .timestamp(let t): hasher.combine(t)
        case .int64(let i): hasher.combine(i)
        case .decimal128(let d): hasher.combine(d.parts == .nan ? Decimal128.nan : d)
        }
    }
}

extension BSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    /// Integer literals become int32 when they fit, as the shell and drivers do, else int64.
    public init(integerLiteral value: Int) {
        self = Int32(exactly: value).map { .int32($0) } ?? .int64(Int64(value))
    }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: BSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, BSON)...) {
        self = .document(BSONDocument(elements))
    }
}
