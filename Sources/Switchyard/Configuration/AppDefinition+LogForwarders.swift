extension AppDefinition {
    static let logForwarderKeys = ["name", "logTypes", "logStatuses", "policy", "action", "disabled"]
    static let logForwarderActionKeys = ["collection", "function"]

    /// `logForwarders:`, a list; names must be unique.
    static func readLogForwarders(
        _ node: YAMLNode, reader: inout ConfigurationReader, registeredFunctions: Set<String>?
    ) -> [LogForwarder] {
        guard let items = reader.sequence(node, "'logForwarders'") else { return [] }
        var forwarders: [LogForwarder] = []
        var firstByName: [String: SourceLocation] = [:]
        for item in items {
            guard let (forwarder, nameLocation) = readLogForwarder(item, reader: &reader, registeredFunctions) else {
                continue
            }
            if let first = firstByName[forwarder.name] {
                reader.error(
                    "duplicate log forwarder name '\(forwarder.name)'", at: nameLocation,
                    notes: [reader.note("'\(forwarder.name)' is first defined here", at: first)])
                continue
            }
            firstByName[forwarder.name] = nameLocation
            forwarders.append(forwarder)
        }
        return forwarders
    }

    private static func readLogForwarder(
        _ node: YAMLNode, reader: inout ConfigurationReader, _ registeredFunctions: Set<String>?
    ) -> (LogForwarder, SourceLocation)? {
        guard let pairs = reader.mapping(node, "a log forwarder") else { return nil }
        reader.rejectUnknownKeys(pairs, known: logForwarderKeys)
        let name = pairs["name"].flatMap { reader.string($0, "'name'") }
        let described = name.map { " in log forwarder '\($0)'" } ?? ""
        func require(_ key: String, example: String) -> YAMLNode? {
            if let value = pairs[key] { return value }
            reader.error("missing required key '\(key)'\(described) (for example \(key): \(example))", at: node)
            return nil
        }
        if let name, name.isEmpty, let nameNode = pairs["name"] {
            reader.error("a log forwarder's 'name' must not be empty", at: nameNode)
        }
        let nameNode = require("name", example: "auditLog")
        let types = require("logTypes", example: "[function, trigger]").flatMap {
            readChoices($0, "'logTypes'", LogForwarder.LogType.self, reader: &reader)
        }
        let statuses = require("logStatuses", example: "[error, success]").flatMap {
            readChoices($0, "'logStatuses'", LogForwarder.LogStatus.self, reader: &reader)
        }
        var policy = LogForwarder.Policy.single
        if let node = pairs["policy"], let text = reader.string(node, "'policy'") {
            if let read = LogForwarder.Policy(rawValue: text) {
                policy = read
            } else {
                let names = LogForwarder.Policy.allCases.map(\.rawValue)
                reader.error(
                    "unknown policy '\(text)'\(ClosestMatch.hint(for: text, among: names)) (expected single or batch)",
                    at: node)
            }
        }
        let action = require("action", example: "{collection: logs.runs}").flatMap {
            readLogForwarderAction($0, described: described, reader: &reader, registeredFunctions)
        }
        let disabled = pairs["disabled"].flatMap { reader.bool($0, "'disabled'") } ?? false
        guard let name, !name.isEmpty, let nameNode, let types, let statuses, let action else { return nil }
        return (
            LogForwarder(
                name: name, logTypes: types, logStatuses: statuses, policy: policy, action: action, disabled: disabled),
            nameNode.location
        )
    }

    /// A non-empty list of known words, each reported with a did-you-mean when it is not one.
    static func readChoices<Choice: RawRepresentable & CaseIterable & Hashable>(
        _ node: YAMLNode, _ what: String, _ type: Choice.Type, reader: inout ConfigurationReader
    ) -> Set<Choice>? where Choice.RawValue == String {
        guard let items = reader.sequence(node, what) else { return nil }
        let names = Choice.allCases.map(\.rawValue)
        guard !items.isEmpty else {
            reader.error("\(what) must name at least one of \(names.joined(separator: ", "))", at: node)
            return nil
        }
        var choices: Set<Choice> = []
        var failed = false
        for item in items {
            guard let text = reader.string(item, "an entry of \(what)") else {
                failed = true
                continue
            }
            guard let choice = Choice(rawValue: text) else {
                reader.error(
                    "unknown entry '\(text)' in \(what)\(ClosestMatch.hint(for: text, among: names)) (expected \(names.joined(separator: ", ")))",
                    at: item)
                failed = true
                continue
            }
            choices.insert(choice)
        }
        return failed ? nil : choices
    }

    /// `{collection: <database>.<collection>}` or `{function: <name>}`.
    private static func readLogForwarderAction(
        _ node: YAMLNode, described: String, reader: inout ConfigurationReader, _ registeredFunctions: Set<String>?
    ) -> LogForwarder.Action? {
        guard let pairs = reader.mapping(node, "'action'") else { return nil }
        reader.rejectUnknownKeys(pairs, known: logForwarderActionKeys)
        let given = pairs.filter { logForwarderActionKeys.contains($0.key) }
        guard given.count == 1, let pair = given.first else {
            reader.error(
                "'action'\(described) takes one of 'collection: <database>.<collection>' or 'function: <name>'",
                at: given.count > 1 ? given[1].keyNode : node)
            return nil
        }
        guard let text = reader.string(pair.value, "'\(pair.key)'") else { return nil }
        if pair.key == "function" {
            guard !text.isEmpty else {
                reader.error("'function' must name a callable function", at: pair.value)
                return nil
            }
            if let registeredFunctions {
                checkFunction(text, at: pair.value.location, registered: registeredFunctions, reader: &reader)
            }
            return .function(text)
        }
        guard let dot = text.firstIndex(of: "."), dot != text.startIndex, text.index(after: dot) != text.endIndex
        else {
            reader.error("'collection' must be '<database>.<collection>', found '\(text)'", at: pair.value)
            return nil
        }
        return .collection(database: String(text[..<dot]), collection: String(text[text.index(after: dot)...]))
    }

    func writeLogForwarders(to out: inout YAMLWriter) {
        guard !logForwarders.isEmpty else { return }
        out.line(0, "logForwarders:")
        for forwarder in logForwarders {
            out.line(2, "- name: \(YAMLWriter.string(forwarder.name))")
            out.field(4, "logTypes", "[" + forwarder.logTypes.sorted().map(\.rawValue).joined(separator: ", ") + "]")
            out.field(
                4, "logStatuses", "[" + forwarder.logStatuses.sorted().map(\.rawValue).joined(separator: ", ") + "]")
            if forwarder.policy != .single { out.field(4, "policy", forwarder.policy.rawValue) }
            switch forwarder.action {
            case .collection(let database, let collection):
                out.field(4, "action", "{collection: \(YAMLWriter.string("\(database).\(collection)"))}")
            case .function(let name):
                out.field(4, "action", "{function: \(YAMLWriter.string(name))}")
            }
            if forwarder.disabled { out.field(4, "disabled", "true") }
        }
    }
}
