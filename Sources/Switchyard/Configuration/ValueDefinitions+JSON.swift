import BSON

extension ValueDefinitions {
    /// The `values.json` text for these definitions (secret references as `{"secret": "name"}`).
    package func jsonText() throws(UnwritableValue) -> String {
        try JSONWriter.text(.document(document), indent: 0) + "\n"
    }

    /// The definitions as `values.json` holds them.
    var document: BSONDocument {
        var document = BSONDocument()
        for entry in entries {
            switch entry.value {
            case .plain(let value): document.append(entry.name, value)
            case .secret(let name): document.append(entry.name, ["secret": .string(name)])
            }
        }
        return document
    }
}

/// Pretty-printed JSON for configuration files; types JSON lacks become Extended JSON wrappers that the
/// readers understand.
enum JSONWriter {
    static func text(_ value: BSON, indent: Int) throws(UnwritableValue) -> String {
        let inner = String(repeating: " ", count: indent + 2)
        let outer = String(repeating: " ", count: indent)
        switch value {
        case .document(let document):
            guard !document.isEmpty else { return "{}" }
            var parts: [String] = []
            for (key, child) in document {
                parts.append(inner + YAMLWriter.quoted(key) + ": " + (try text(child, indent: indent + 2)))
            }
            return "{\n" + parts.joined(separator: ",\n") + "\n" + outer + "}"
        case .array(let items):
            guard !items.isEmpty else { return "[]" }
            var parts: [String] = []
            for item in items { parts.append(inner + (try text(item, indent: indent + 2))) }
            return "[\n" + parts.joined(separator: ",\n") + "\n" + outer + "]"
        case .string(let string): return YAMLWriter.quoted(string)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .int32(let number): return "\(number)"
        case .int64(let number):
            return Int32(exactly: number) == nil ? "\(number)" : "{\"$numberLong\": \"\(number)\"}"
        case .double(let number):
            if number.isNaN { return "{\"$numberDouble\": \"NaN\"}" }
            if number.isInfinite { return "{\"$numberDouble\": \"\(number < 0 ? "-" : "")Infinity\"}" }
            return "\(number)"
        case .objectId(let id): return "{\"$oid\": \"\(id.hex)\"}"
        case .datetime(let date):
            if let iso = ISO8601Timestamp.format(date) { return "{\"$date\": \"\(iso)\"}" }
            return "{\"$date\": {\"$numberLong\": \"\(date.millisecondsSinceEpoch)\"}}"
        default:
            throw UnwritableValue(typeName: value.typeName)
        }
    }
}
