import BSON

/// Values as the server prints them inside error messages (`{_id: 1}`, `{a: [ 1, 2 ]}`), so that messages
/// read like MongoDB's. Deep or long values are cut short: a message is not a dump.
extension BSON {
    var messageText: String {
        var text = ""
        appendMessageText(to: &text, depth: 0)
        return text
    }

    /// The `(NumberInt)5` form the server uses when arithmetic on a stored number fails.
    var arithmeticMessageText: String {
        switch self {
        case .int32(let i): "(NumberInt)\(i)"
        case .int64(let i): "(NumberLong)\(i)"
        case .double(let d): "(NumberDouble)\(Self.doubleText(d))"
        case .decimal128: "(NumberDecimal)\(messageText)"
        default: messageText
        }
    }

    private static let maximumDepth = 20
    private static let maximumElements = 50
    private static let maximumLength = 1000

    private func appendMessageText(to text: inout String, depth: Int) {
        guard text.utf8.count < Self.maximumLength else { return text += "…" }
        switch self {
        case .double(let d): text += Self.doubleText(d)
        case .string(let s): text += "\"\(s)\""
        case .document(let d):
            guard !d.isEmpty else { return text += "{}" }
            guard depth < Self.maximumDepth else { return text += "{ … }" }
            text += "{ "
            for (i, (key, value)) in d.prefix(Self.maximumElements).enumerated() {
                if i > 0 { text += ", " }
                text += key + ": "
                value.appendMessageText(to: &text, depth: depth + 1)
            }
            text += d.count > Self.maximumElements ? ", … }" : " }"
        case .array(let a):
            guard !a.isEmpty else { return text += "[]" }
            guard depth < Self.maximumDepth else { return text += "[ … ]" }
            text += "[ "
            for (i, value) in a.prefix(Self.maximumElements).enumerated() {
                if i > 0 { text += ", " }
                value.appendMessageText(to: &text, depth: depth + 1)
            }
            text += a.count > Self.maximumElements ? ", … ]" : " ]"
        case .binary(let b):
            let hex = b.data.prefix(64).map { String($0, radix: 16, uppercase: true) }
                .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
            text += "BinData(\(b.subtype), \(hex))"
        case .undefined: text += "undefined"
        case .objectId(let o): text += "ObjectId('\(o.hex)')"
        case .bool(let b): text += b ? "true" : "false"
        case .datetime(let d): text += "new Date(\(d.millisecondsSinceEpoch))"
        case .null: text += "null"
        case .regex(let r): text += "/\(r.pattern)/\(r.options)"
        case .dbPointer(let p): text += "DBRef('\(p.namespace)', '\(p.id.hex)')"
        case .javascript(let code): text += code
        case .symbol(let s): text += "\"\(s)\""
        case .javascriptWithScope(let c): text += c.code
        case .int32(let i): text += String(i)
        case .timestamp(let t): text += "Timestamp(\(t.time), \(t.increment))"
        case .int64(let i): text += String(i)
        case .decimal128(let d): text += d.doubleValue.map { "NumberDecimal(\"\($0)\")" } ?? "NumberDecimal(NaN)"
        case .minKey: text += "MinKey"
        case .maxKey: text += "MaxKey"
        }
    }

    private static func doubleText(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) + ".0" }
        return String(d)
    }
}

extension BSONDocument {
    /// `{_id: 1}` and the like: one field as the server prints it inside braces.
    static func messageText(field: String, value: BSON) -> String {
        "{\(field): \(value.messageText)}"
    }

    /// How messages name a document: by its `_id` (`_id: 1`), or `no id`.
    var idMessageText: String {
        self["_id"].map { "_id: \($0.messageText)" } ?? "no id"
    }
}
