import BSON

/// Renders values the way the MongoDB server writes them in error messages
/// (`{ name: "x" }`, `ObjectId('…')`), for `E11000 … dup key: { … }`.
enum ShellFormat {
    static func render(_ value: BSON, depth: Int = 0) -> String {
        guard depth < 20 else { return "…" }
        switch value {
        case .string(let s), .symbol(let s): return "\"\(s)\""
        case .int32(let i): return "\(i)"
        case .int64(let i): return "\(i)"
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? "\(Int64(d)).0" : "\(d)"
        case .decimal128: return "NumberDecimal(…)"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .undefined: return "undefined"
        case .objectId(let o): return "ObjectId('\(o.hex)')"
        case .datetime(let d): return "new Date(\(d.millisecondsSinceEpoch))"
        case .document(let d): return render(d, depth: depth + 1)
        case .array(let a):
            return a.isEmpty ? "[]" : "[ " + a.map { render($0, depth: depth + 1) }.joined(separator: ", ") + " ]"
        case .minKey: return "MinKey"
        case .maxKey: return "MaxKey"
        case .timestamp(let t): return "Timestamp(\(t.time), \(t.increment))"
        case .regex(let r): return "/\(r.pattern)/\(r.options)"
        case .binary(let b): return "BinData(\(b.subtype), …)"
        case .javascript(let code): return code
        case .javascriptWithScope(let c): return c.code
        case .dbPointer(let p): return "DBPointer(\(p.namespace))"
        }
    }

    static func render(_ document: BSONDocument, depth: Int = 0) -> String {
        document.isEmpty
            ? "{}"
            : "{ " + document.map { "\($0.key): \(render($0.value, depth: depth + 1))" }.joined(separator: ", ") + " }"
    }
}
