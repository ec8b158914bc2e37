extension ValueDefinitions {
    /// Parses `values.json`: an object of name → value (see `ValueDefinition` for secret references).
    package static func parse(_ text: String, file: String = "values.json") throws(ConfigurationErrors)
        -> ValueDefinitions
    {
        var reader = ConfigurationReader(file: file)
        let result = JSONText.parse(text, reader: &reader).map { read($0, reader: &reader) }
        guard reader.errors.isEmpty, let result else { throw ConfigurationErrors(reader.errors) }
        return result.definitions
    }

    /// Definitions with the position of each value, for errors found later (a secret that is not set).
    static func read(
        _ node: YAMLNode, reader: inout ConfigurationReader
    ) -> (definitions: ValueDefinitions, locations: [String: SourceLocation]) {
        var definitions = ValueDefinitions()
        var locations: [String: SourceLocation] = [:]
        guard let pairs = reader.mapping(node, "the values file") else { return (definitions, locations) }
        for pair in pairs {
            guard let value = definition(pair.value, name: pair.key, reader: &reader) else { continue }
            definitions.entries.append(Entry(name: pair.key, value: value))
            locations[pair.key] = pair.value.location
        }
        return (definitions, locations)
    }

    private static func definition(_ node: YAMLNode, name: String, reader: inout ConfigurationReader)
        -> ValueDefinition?
    {
        if case .mapping(let rawPairs) = node.value {
            let keys = rawPairs.compactMap(\.key.scalar)
            if keys == ["secret"], let secretNode = rawPairs.first?.value {
                guard let secret = secretName(secretNode, reader: &reader) else { return nil }
                return .secret(name: secret)
            }
            if Set(keys) == ["value", "from_secret"], keys.count == 2, let pairs = reader.mapping(node, "a value") {
                guard let valueNode = pairs["value"], let flagNode = pairs["from_secret"],
                    let fromSecret = reader.bool(flagNode, "'from_secret'")
                else { return nil }
                if fromSecret {
                    return secretName(valueNode, reader: &reader).map { .secret(name: $0) }
                }
                return reader.bson(valueNode, rules: .json).map(ValueDefinition.plain)
            }
        }
        return reader.bson(node, rules: .json).map(ValueDefinition.plain)
    }

    private static func secretName(_ node: YAMLNode, reader: inout ConfigurationReader) -> String? {
        guard case .scalar(let text, isPlain: false) = node.value, !text.isEmpty else {
            reader.error("a secret reference needs the secret's name as a string", at: node)
            return nil
        }
        return text
    }
}
