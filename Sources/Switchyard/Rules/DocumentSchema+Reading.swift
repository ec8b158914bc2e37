import BSON
import DocumentStore

extension DocumentSchema {
    static let keys = [
        "bsonType", "type", "title", "description", "required", "properties", "additionalProperties", "items",
        "additionalItems", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
        "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
    ]

    /// Reads a schema (`schema.json`, or `schema:` in `triggers.yaml`), reporting every problem where it is written.
    static func read(_ node: YAMLNode, scalars: ScalarRules, reader: inout ConfigurationReader, depth: Int = 0)
        -> DocumentSchema?
    {
        guard depth < 64 else {
            reader.error("schema nested too deeply (more than 64 levels)", at: node)
            return nil
        }
        guard let pairs = reader.mapping(node, "a schema") else { return nil }
        reader.rejectUnknownKeys(pairs, known: keys)
        var schema = DocumentSchema()
        if let v = pairs["bsonType"] { schema.types = typeList(v, json: false, reader: &reader) }
        if let v = pairs["type"] {
            if pairs["bsonType"] != nil {
                reader.error("'type' cannot be used with 'bsonType'", at: v)
            } else {
                schema.types = typeList(v, json: true, reader: &reader)
            }
        }
        if let v = pairs["required"], let items = reader.sequence(v, "'required'") {
            schema.required = items.compactMap { reader.string($0, "a required field's name") }
        }
        if let v = pairs["properties"], let entries = reader.mapping(v, "'properties'") {
            for entry in entries {
                if let property = read(entry.value, scalars: scalars, reader: &reader, depth: depth + 1) {
                    schema.properties[entry.key] = property
                }
            }
        }
        if let v = pairs["additionalProperties"] {
            if case .mapping = v.value {
                if let inner = read(v, scalars: scalars, reader: &reader, depth: depth + 1) {
                    schema.additionalProperties = .schema(inner)
                }
            } else if let allowed = reader.bool(v, "'additionalProperties' (true, false or a schema)") {
                schema.additionalProperties = .allowed(allowed)
            }
        }
        if let v = pairs["items"] {
            if case .sequence(let items) = v.value {
                schema.items = .tuple(
                    items.compactMap { read($0, scalars: scalars, reader: &reader, depth: depth + 1) })
            } else if let inner = read(v, scalars: scalars, reader: &reader, depth: depth + 1) {
                schema.items = .each(inner)
            }
        }
        if let v = pairs["enum"], let value = reader.bson(v, rules: scalars) {
            if case .array(let values) = value {
                schema.allowedValues = values
            } else {
                reader.error("'enum' must be a list of values", at: v)
            }
        }
        for (key, exclusiveKey, isMinimum) in [
            ("minimum", "exclusiveMinimum", true), ("maximum", "exclusiveMaximum", false),
        ] {
            guard let v = pairs[key] else { continue }
            guard let number = reader.bson(v, rules: scalars)?.doubleValue else {
                reader.error("'\(key)' must be a number", at: v)
                continue
            }
            let exclusive = pairs[exclusiveKey].flatMap { reader.bool($0, "'\(exclusiveKey)'") } ?? false
            let bound = Bound(value: number, exclusive: exclusive)
            if isMinimum { schema.minimum = bound } else { schema.maximum = bound }
        }
        let counts: [(String, WritableKeyPath<DocumentSchema, Int?>)] = [
            ("minLength", \.minLength), ("maxLength", \.maxLength), ("minItems", \.minItems),
            ("maxItems", \.maxItems), ("minProperties", \.minProperties), ("maxProperties", \.maxProperties),
        ]
        for (key, path) in counts {
            if let v = pairs[key] { schema[keyPath: path] = reader.integer(v, "'\(key)'", in: 0...Int(Int32.max)) }
        }
        if let v = pairs["pattern"], let pattern = reader.string(v, "'pattern'") {
            if (try? QueryFilter(["value": ["$regex": .string(pattern)]])) == nil {
                reader.error("'pattern' is not a valid regular expression", at: v)
            } else {
                schema.pattern = pattern
            }
        }
        if let v = pairs["uniqueItems"], let unique = reader.bool(v, "'uniqueItems'") { schema.uniqueItems = unique }
        return schema
    }

    private static func typeList(_ node: YAMLNode, json: Bool, reader: inout ConfigurationReader) -> [String]? {
        let names: [YAMLNode]
        if case .sequence(let items) = node.value { names = items } else { names = [node] }
        var types: [String] = []
        for name in names {
            guard let text = reader.string(name, json ? "'type'" : "'bsonType'") else { continue }
            if json {
                guard let mapped = jsonTypes[text] else {
                    reader.error(
                        "unknown JSON type '\(text)'\(ClosestMatch.hint(for: text, among: jsonTypes.keys.sorted())) (use 'bsonType' for BSON types)",
                        at: name)
                    continue
                }
                types += mapped
            } else {
                guard typeNames.contains(text) else {
                    reader.error(
                        "unknown bsonType '\(text)'\(ClosestMatch.hint(for: text, among: typeNames.sorted()))", at: name
                    )
                    continue
                }
                types.append(text)
            }
        }
        return types
    }
}
