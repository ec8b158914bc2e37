import BSON

extension AppDefinition {
    static let indexKeys = ["database", "collection", "keys", "unique", "name"]

    static func readIndexes(_ node: YAMLNode, reader: inout ConfigurationReader) -> [IndexDeclaration] {
        guard let items = reader.sequence(node, "'indexes'") else { return [] }
        return items.compactMap { readIndex($0, reader: &reader) }
    }

    private static func readIndex(_ node: YAMLNode, reader: inout ConfigurationReader) -> IndexDeclaration? {
        guard let pairs = reader.mapping(node, "an index") else { return nil }
        reader.rejectUnknownKeys(pairs, known: indexKeys)
        var text: [String: String] = [:]
        for key in ["database", "collection"] {
            if let value = pairs[key] {
                text[key] = reader.string(value, "'\(key)'")
            } else {
                reader.error("missing required key '\(key)' in an index", at: node)
            }
        }
        var keys: BSONDocument?
        if let value = pairs["keys"] {
            keys = readKeyPattern(value, reader: &reader)
        } else {
            reader.error("missing required key 'keys' in an index (for example keys: {date: 1})", at: node)
        }
        let unique = pairs["unique"].flatMap { reader.bool($0, "'unique'") } ?? false
        let name = pairs["name"].flatMap { reader.string($0, "'name'") }
        guard let database = text["database"], let collection = text["collection"], let keys else { return nil }
        return IndexDeclaration(database: database, collection: collection, keys: keys, unique: unique, name: name)
    }

    /// A non-empty mapping of field paths to 1 or -1.
    private static func readKeyPattern(_ node: YAMLNode, reader: inout ConfigurationReader) -> BSONDocument? {
        guard let pairs = reader.mapping(node, "'keys'") else { return nil }
        guard !pairs.isEmpty else {
            reader.error("'keys' must name at least one field", at: node)
            return nil
        }
        var keys = BSONDocument()
        var failed = false
        for pair in pairs {
            guard pair.value.scalar == "1" || pair.value.scalar == "-1" else {
                reader.error("index key '\(pair.key)' must be 1 (ascending) or -1 (descending)", at: pair.value)
                failed = true
                continue
            }
            keys.append(pair.key, .int32(pair.value.scalar == "1" ? 1 : -1))
        }
        return failed ? nil : keys
    }

    func writeIndexes(to out: inout YAMLWriter) {
        guard !indexes.isEmpty else { return }
        out.line(0, "indexes:")
        for index in indexes {
            out.line(2, "- database: \(YAMLWriter.string(index.database))")
            out.field(4, "collection", YAMLWriter.string(index.collection))
            let keys = index.keys.map { key, value in
                "\(YAMLWriter.string(key)): \(value.doubleValue.map { $0 < 0 ? "-1" : "1" } ?? "1")"
            }
            out.field(4, "keys", "{" + keys.joined(separator: ", ") + "}")
            if index.unique { out.field(4, "unique", "true") }
            if let name = index.name { out.field(4, "name", YAMLWriter.string(name)) }
        }
    }
}
