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
        let untabbed = text.replacingTabs()
        do {
            return try YAMLParser.parse(untabbed, file: reader.file)
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
