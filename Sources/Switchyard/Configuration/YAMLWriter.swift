import BSON

/// Writes the YAML subset `triggers.yaml` uses: block mappings and sequences, flow lists of words, and
/// scalars quoted whenever a plain scalar could be read back as something else.
struct YAMLWriter {
    private(set) var lines: [String] = []

    var text: String { lines.joined(separator: "\n") + "\n" }

    mutating func line(_ indent: Int, _ text: String) {
        lines.append(String(repeating: " ", count: indent) + text)
    }

    mutating func field(_ indent: Int, _ key: String, _ scalar: String) {
        line(indent, "\(Self.string(key)): \(scalar)")
    }

    mutating func field(_ indent: Int, _ key: String, _ value: BSON) throws(UnwritableValue) {
        if let inline = try Self.inline(value) {
            field(indent, key, inline)
        } else {
            line(indent, "\(Self.string(key)):")
            try block(value, indent: indent + 2)
        }
    }

    /// A non-empty document or array, one entry per line at `indent`.
    private mutating func block(_ value: BSON, indent: Int) throws(UnwritableValue) {
        switch value {
        case .document(let document):
            for (key, child) in document { try field(indent, key, child) }
        case .array(let items):
            for item in items {
                if let inline = try Self.inline(item) {
                    line(indent, "- \(inline)")
                } else {
                    // The item's first line takes the place of the "- " marker's indentation.
                    var nested = YAMLWriter()
                    try nested.block(item, indent: indent + 2)
                    for (index, text) in nested.lines.enumerated() {
                        lines.append(
                            index == 0
                                ? String(repeating: " ", count: indent) + "- " + text.dropFirst(indent + 2) : text)
                    }
                }
            }
        default:
            break
        }
    }

    /// The one-line form of scalars, empty containers and Extended JSON wrappers; nil for a block.
    static func inline(_ value: BSON) throws(UnwritableValue) -> String? {
        switch value {
        case .document(let document): return document.isEmpty ? "{}" : nil
        case .array(let array): return array.isEmpty ? "[]" : nil
        case .string(let text): return string(text)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .int32(let number): return "\(number)"
        case .int64(let number):
            return Int32(exactly: number) == nil ? "\(number)" : "{$numberLong: \"\(number)\"}"
        case .double(let number):
            if number.isNaN { return ".nan" }
            if number.isInfinite { return number < 0 ? "-.inf" : ".inf" }
            return "\(number)"
        case .objectId(let id): return "{$oid: \"\(id.hex)\"}"
        case .datetime(let date):
            if let iso = ISO8601Timestamp.format(date) { return "{$date: \"\(iso)\"}" }
            return "{$date: {$numberLong: \"\(date.millisecondsSinceEpoch)\"}}"
        default:
            throw UnwritableValue(typeName: value.typeName)
        }
    }

    /// Plain when a plain scalar would read back as the same string, double-quoted otherwise.
    static func string(_ text: String) -> String {
        let reserved: Set<String> = ["true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"]
        let plainSafe =
            text.unicodeScalars.first.map { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "_" } ?? false
            && text.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-./".unicodeScalars.contains($0))
            }
            && !reserved.contains(text.lowercased())
        return plainSafe ? text : quoted(text)
    }

    /// Double-quoted with JSON-compatible escapes, so the same text is valid JSON and YAML.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _
            where scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0xFEFF:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
