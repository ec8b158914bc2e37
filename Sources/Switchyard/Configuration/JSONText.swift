/// Reads JSON configuration files with the YAML parser: JSON is YAML's flow syntax, and this keeps key
/// order, rejects duplicate keys, and gives every value a line and column (Foundation's
/// `JSONSerialization` does none of that). Plain scalars are then held to JSON's literals (`ScalarRules.json`).
/// The Extended JSON reader in the BSON module can replace this once it reports positions.
enum JSONText {
    static func parse(_ text: String, reader: inout ConfigurationReader) -> YAMLNode? {
        guard let first = text.first(where: { !$0.isWhitespace }) else {
            reader.error("empty file, expected a JSON object", at: SourceLocation(line: 1, column: 1))
            return nil
        }
        guard first == "{" || first == "[" else {
            reader.error("expected a JSON object", at: SourceLocation(line: 1, column: 1))
            return nil
        }
        // Outside strings a tab is only whitespace in JSON, and inside strings JSON forbids raw tabs, so
        // replacing tabs keeps every column while sparing YAML's tab rules.
        let prepared = text.replacingTabs().joiningSurrogatePairs()
        do {
            return try YAMLParser.parse(prepared, file: reader.file)
        } catch {
            reader.error(error.message, at: error.location)
            return nil
        }
    }
}

extension String {
    fileprivate func replacingTabs() -> String {
        guard contains("\t") else { return self }
        return String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\t" ? " " : $0 }))
    }
}

extension String {
    /// Rewrites JSON's UTF-16 surrogate-pair escapes (`\ud83d\ude00`), which YAML rejects, as YAML's
    /// 8-digit escape (`\U0001F600`). Columns after such a pair on the same line move left by two.
    fileprivate func joiningSurrogatePairs() -> String {
        guard contains("\\u") else { return self }
        let scalars = Array(unicodeScalars)
        var out = String.UnicodeScalarView()
        func hex4(at index: Int) -> UInt32? {
            guard index + 6 <= scalars.count, scalars[index] == "\\", scalars[index + 1] == "u" else { return nil }
            return UInt32(String(String.UnicodeScalarView(scalars[(index + 2)..<(index + 6)])), radix: 16)
        }
        var index = 0
        var inString = false
        while index < scalars.count {
            let scalar = scalars[index]
            if inString, scalar == "\\" {
                if let high = hex4(at: index), (0xD800...0xDBFF).contains(high), let low = hex4(at: index + 6),
                    (0xDC00...0xDFFF).contains(low)
                {
                    let combined = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                    let digits = String(combined, radix: 16, uppercase: true)
                    out.append(
                        contentsOf: ("\\U" + String(repeating: "0", count: 8 - digits.count) + digits).unicodeScalars)
                    index += 12
                    continue
                }
                out.append(scalar)
                if index + 1 < scalars.count { out.append(scalars[index + 1]) }
                index += 2
                continue
            }
            if scalar == "\"" { inString.toggle() }
            out.append(scalar)
            index += 1
        }
        return String(out)
    }
}
