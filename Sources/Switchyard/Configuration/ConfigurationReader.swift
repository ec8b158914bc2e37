/// Reads typed values out of `YAMLNode`s for one file, collecting every problem instead of stopping at the
/// first, each with the position of the node it is about.
struct ConfigurationReader {
    let file: String
    private(set) var errors: [ConfigurationError] = []
    /// Nodes still allowed to be converted to BSON: aliases can make a small file describe an enormous
    /// document ("billion laughs"), and nothing a configuration needs comes close to this.
    private var conversionBudget = 100_000

    init(file: String) {
        self.file = file
    }

    mutating func error(_ message: String, at location: SourceLocation?, notes: [ConfigurationError.Note] = []) {
        errors.append(ConfigurationError(file: file, location: location, message: message, notes: notes))
    }

    mutating func error(_ message: String, at node: YAMLNode, notes: [ConfigurationError.Note] = []) {
        error(message, at: node.location, notes: notes)
    }

    func note(_ message: String, at location: SourceLocation) -> ConfigurationError.Note {
        ConfigurationError.Note(file: file, location: location, message: message)
    }

    mutating func adopt(_ other: ConfigurationReader) {
        errors += other.errors
    }

    /// A mapping's pairs with scalar keys; reports a non-mapping as "`what` must be a mapping".
    mutating func mapping(_ node: YAMLNode, _ what: String) -> [(key: String, keyNode: YAMLNode, value: YAMLNode)]? {
        guard case .mapping(let pairs) = node.value else {
            error("\(what) must be a mapping, found \(node.kindName)", at: node)
            return nil
        }
        var result: [(key: String, keyNode: YAMLNode, value: YAMLNode)] = []
        for pair in pairs {
            guard let key = pair.key.scalar else {
                error("keys must be strings, found \(pair.key.kindName)", at: pair.key)
                continue
            }
            result.append((key, pair.key, pair.value))
        }
        return result
    }

    mutating func sequence(_ node: YAMLNode, _ what: String) -> [YAMLNode]? {
        guard case .sequence(let items) = node.value else {
            error("\(what) must be a list, found \(node.kindName)", at: node)
            return nil
        }
        return items
    }

    /// Any non-null scalar's text (`name: 123` names something "123").
    mutating func string(_ node: YAMLNode, _ what: String) -> String? {
        guard let text = node.scalar, !node.isNull else {
            error("\(what) must be a string", at: node)
            return nil
        }
        return text
    }

    /// A plain `true` or `false` (any case); a quoted "true" is a string, not a bool.
    mutating func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        if case .scalar(let text, isPlain: true) = node.value {
            switch text.lowercased() {
            case "true": return true
            case "false": return false
            default: break
            }
        }
        error("\(what) must be true or false", at: node)
        return nil
    }

    mutating func integer(_ node: YAMLNode, _ what: String, in range: ClosedRange<Int>) -> Int? {
        guard case .scalar(let text, isPlain: true) = node.value, let value = Int(text), range.contains(value) else {
            error("\(what) must be a whole number from \(range.lowerBound) to \(range.upperBound)", at: node)
            return nil
        }
        return value
    }

    mutating func duration(_ node: YAMLNode, _ what: String) -> Duration? {
        guard let text = node.scalar, let duration = Duration(configurationText: text) else {
            error("\(what) must be a duration like 500ms, 2s, 1m or 1h", at: node)
            return nil
        }
        return duration
    }

    /// Reports keys outside `known`, suggesting the closest known one.
    mutating func rejectUnknownKeys(
        _ pairs: [(key: String, keyNode: YAMLNode, value: YAMLNode)], known: [String]
    ) {
        for pair in pairs where !known.contains(pair.key) {
            error("unknown key '\(pair.key)'\(ClosestMatch.hint(for: pair.key, among: known))", at: pair.keyNode)
        }
    }

    /// Spends one node of the conversion budget; false (and one error) once it is spent.
    mutating func spendConversionBudget(at node: YAMLNode) -> Bool {
        conversionBudget -= 1
        if conversionBudget == 0 {
            error("document too large (more than 100000 values, perhaps through aliases)", at: node)
        }
        return conversionBudget > 0
    }
}

extension Array where Element == (key: String, keyNode: YAMLNode, value: YAMLNode) {
    subscript(key: String) -> YAMLNode? {
        first { $0.key == key }?.value
    }
}
