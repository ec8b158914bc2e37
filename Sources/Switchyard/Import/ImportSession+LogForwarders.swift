/// `log_forwarders/<name>.json`, which becomes `logForwarders:` in triggers.yaml.
extension ImportSession {
    /// Each forwarder whose action Switchyard has; one note per forwarder left out, and per log type it keeps
    /// that matches nothing here.
    mutating func readLogForwarders() -> [LogForwarder] {
        var forwarders: [LogForwarder] = []
        for file in jsonFiles(in: "log_forwarders") {
            guard let read = withJSON(file, Self.logForwarder) else { continue }
            switch read {
            case .leftOut(let message):
                leftOut.append(ImportNote(file, message))
            case .imported(let forwarder):
                if forwarders.contains(where: { $0.name == forwarder.name }) {
                    errors.append(
                        ConfigurationError(
                            file: path(file), location: nil,
                            message: "duplicate log forwarder name '\(forwarder.name)'"))
                    continue
                }
                let unrecorded = forwarder.logTypes.subtracting(LogForwarder.LogType.recorded).sorted()
                if !unrecorded.isEmpty {
                    leftOut.append(
                        ImportNote(
                            file,
                            "log type\(unrecorded.count == 1 ? "" : "s") \(unrecorded.map { "'\($0.rawValue)'" }.joined(separator: ", ")) kept but never forwarded: Switchyard's invocation log records function runs only (function, trigger, trigger_error_handler, endpoint)"
                        ))
                }
                if case .function(let name) = forwarder.action {
                    use(
                        name, kind: .callable,
                        by: "the `\(forwarder.name)` log forwarder's function, given the array of forwarded records")
                }
                forwarders.append(forwarder)
            }
        }
        return forwarders
    }

    enum LogForwarderRead {
        case imported(LogForwarder)
        case leftOut(String)
    }

    /// `{name, log_types, log_statuses, policy: {type}, action: {type: collection, database, collection} |
    /// {type: function, name}, disabled}`; other keys an export carries (`data_source`, ids) are not needed here.
    static func logForwarder(_ node: YAMLNode, reader: inout ConfigurationReader) -> LogForwarderRead? {
        guard let pairs = reader.mapping(node, "a log forwarder") else { return nil }
        func required(_ key: String) -> YAMLNode? { pairs[key] ?? missing(key, node, &reader) }
        let nameNode = required("name")
        var name = nameNode.flatMap { reader.string($0, "'name'") }
        if name?.isEmpty == true, let nameNode {
            reader.error("a log forwarder's 'name' must not be empty", at: nameNode)
            name = nil
        }
        let types = required("log_types").flatMap {
            AppDefinition.readChoices($0, "'log_types'", LogForwarder.LogType.self, reader: &reader)
        }
        let statuses = required("log_statuses").flatMap {
            AppDefinition.readChoices($0, "'log_statuses'", LogForwarder.LogStatus.self, reader: &reader)
        }
        var policy = LogForwarder.Policy.single
        if let node = pairs["policy"], let fields = reader.mapping(node, "'policy'"),
            let typeNode = fields["type"] ?? missing("type", node, &reader),
            let text = reader.string(typeNode, "the policy's 'type'")
        {
            if let read = LogForwarder.Policy(rawValue: text) {
                policy = read
            } else {
                reader.error(
                    "unknown policy type '\(text)'\(ClosestMatch.hint(for: text, among: LogForwarder.Policy.allCases.map(\.rawValue))) (expected single or batch)",
                    at: typeNode)
            }
        }
        let disabled = pairs["disabled"].flatMap { reader.bool($0, "'disabled'") } ?? false
        guard let actionNode = required("action"), let fields = reader.mapping(actionNode, "'action'"),
            let typeNode = fields["type"] ?? missing("type", actionNode, &reader),
            let actionType = reader.string(typeNode, "the action's 'type'")
        else { return nil }
        func field(_ key: String) -> String? {
            guard let value = fields[key] ?? missing(key, actionNode, &reader),
                let text = reader.string(value, "'\(key)'")
            else { return nil }
            if text.isEmpty { reader.error("'\(key)' must not be empty", at: value) }
            return text.isEmpty ? nil : text
        }
        let action: LogForwarder.Action?
        switch actionType {
        case "collection":
            let database = field("database")
            let collection = field("collection")
            action = database.flatMap { database in collection.map { .collection(database: database, collection: $0) } }
        case "function":
            action = field("name").map { .function($0) }
        default:
            return .leftOut(
                "log forwarder\(name.map { " '\($0)'" } ?? "") left out: its action type '\(actionType)' is not one Switchyard has (collection or function)"
            )
        }
        guard let name, let types, let statuses, let action else { return nil }
        return .imported(
            LogForwarder(
                name: name, logTypes: types, logStatuses: statuses, policy: policy, action: action, disabled: disabled))
    }
}
