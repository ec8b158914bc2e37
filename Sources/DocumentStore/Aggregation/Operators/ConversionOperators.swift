import BSON

extension ExpressionOperator {
    static let conversions: [ExpressionOperator] = [
        ExpressionOperator("$toString", 1...1) { args throws(StoreError) in
            args[0].isNullish ? .null : .string(try ConversionOperators.string(args[0]!))
        },
        ExpressionOperator("$toInt", 1...1) { args throws(StoreError) in
            args[0].isNullish ? .null : try ConversionOperators.int(args[0]!)
        },
        ExpressionOperator("$toLong", 1...1) { args throws(StoreError) in
            args[0].isNullish ? .null : try ConversionOperators.long(args[0]!)
        },
        ExpressionOperator("$toDouble", 1...1) { args throws(StoreError) in
            args[0].isNullish ? .null : try ConversionOperators.double(args[0]!)
        },
        ExpressionOperator("$toBool", 1...1) { args throws(StoreError) in
            args[0].isNullish ? .null : try ConversionOperators.bool(args[0]!)
        },
        ExpressionOperator("$toObjectId", 1...1) { args throws(StoreError) in
            args[0].isNullish ? .null : try ConversionOperators.objectId(args[0]!)
        },
        ExpressionOperator("$type", 1...1) { args in .string(typeName(args[0])) },
    ]
}

/// `$convert`'s rules, as the `$to…` shorthands apply them (without `onError`/`onNull`).
enum ConversionOperators {
    static func failure(_ message: String) -> StoreError {
        StoreError(code: .conversionFailure, message: message + " in $convert with no onError value")
    }

    static func unsupported(_ value: BSON, to target: String) -> StoreError {
        failure("Unsupported conversion from \(value.typeName) to \(target)")
    }

    /// Doubles as MongoDB prints them: `2.5`, `1` (no `.0`), `1e+21`, `NaN`, `Infinity`.
    static func format(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        var text = "\(d)"
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    static func string(_ value: BSON) throws(StoreError) -> String {
        switch value {
        case .string(let s), .symbol(let s): return s
        case .int32(let i): return "\(i)"
        case .int64(let i): return "\(i)"
        case .double(let d): return format(d)
        case .bool(let b): return b ? "true" : "false"
        case .objectId(let id): return id.hex
        case .datetime(let date): return date.iso8601
        default: throw unsupported(value, to: "string")
        }
    }

    static func int(_ value: BSON) throws(StoreError) -> BSON {
        switch value {
        case .int32: return value
        case .bool(let b): return .int32(b ? 1 : 0)
        case .string(let s):
            guard let i = parseInteger(s, as: Int32.self) else { throw parseFailure(s) }
            return .int32(i)
        default:
            let whole = try truncated(value, to: "int")
            guard let i = Int32(exactly: whole) else {
                throw failure("Conversion would overflow target type")
            }
            return .int32(i)
        }
    }

    static func long(_ value: BSON) throws(StoreError) -> BSON {
        switch value {
        case .int64: return value
        case .int32(let i): return .int64(Int64(i))
        case .bool(let b): return .int64(b ? 1 : 0)
        case .datetime(let date): return .int64(date.millisecondsSinceEpoch)
        case .string(let s):
            guard let i = parseInteger(s, as: Int64.self) else { throw parseFailure(s) }
            return .int64(i)
        default:
            return .int64(try truncated(value, to: "long"))
        }
    }

    static func double(_ value: BSON) throws(StoreError) -> BSON {
        switch value {
        case .double: return value
        case .int32, .int64, .decimal128: return .double(value.doubleValue ?? .nan)
        case .bool(let b): return .double(b ? 1 : 0)
        case .datetime(let date): return .double(Double(date.millisecondsSinceEpoch))
        case .string(let s):
            switch s {
            case "Infinity", "inf": return .double(.infinity)
            case "-Infinity", "-inf": return .double(-.infinity)
            case "NaN", "nan": return .double(.nan)
            default:
                // Swift accepts hexadecimal floats and "infinity"; MongoDB wants plain decimal text.
                guard let d = Double(s), d.isFinite, !s.lowercased().contains("x") else { throw parseFailure(s) }
                return .double(d)
            }
        default: throw unsupported(value, to: "double")
        }
    }

    static func bool(_ value: BSON) throws(StoreError) -> BSON {
        switch value {
        case .bool: value
        case .int32, .int64, .double, .decimal128: .bool(Expression.isTrue(value))
        default: .bool(true)
        }
    }

    static func objectId(_ value: BSON) throws(StoreError) -> BSON {
        switch value {
        case .objectId: return value
        case .string(let s):
            guard let id = ObjectId(hex: s) else {
                throw failure(
                    "Failed to parse objectId '\(s)': Invalid string length for parsing to OID, expected 24 but found "
                        + "\(s.utf8.count)")
            }
            return .objectId(id)
        default: throw unsupported(value, to: "objectId")
        }
    }

    /// Base-10 digits with an optional sign, nothing else (no spaces, no `0x`, no `+`-less oddities).
    private static func parseInteger<T: FixedWidthInteger>(_ s: String, as: T.Type) -> T? {
        guard let first = s.utf8.first, first != UInt8(ascii: "+") else { return nil }
        return T(s, radix: 10)
    }

    private static func parseFailure(_ s: String) -> StoreError {
        failure("Failed to parse number '\(s)': Did not consume whole string.")
    }

    /// A double or decimal truncated toward zero into int64; NaN, infinities and out-of-range values fail.
    private static func truncated(_ value: BSON, to target: String) throws(StoreError) -> Int64 {
        switch value {
        case .int64(let i): return i
        case .double, .decimal128:
            let d = value.doubleValue ?? .nan
            if d.isNaN { throw failure("Attempt to convert NaN value to integer type") }
            if d.isInfinite { throw failure("Attempt to convert infinity value to integer type") }
            guard let whole = Int64(exactly: d.rounded(.towardZero)) else {
                throw failure("Conversion would overflow target type")
            }
            return whole
        default: throw unsupported(value, to: target)
        }
    }
}
