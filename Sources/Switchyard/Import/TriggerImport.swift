import BSON

/// Reads one `triggers/<name>.json` of an App Services export.
enum TriggerImport {
    /// What one trigger file turns into.
    enum Outcome {
        /// The trigger, the position of its name, and what of its settings was left out.
        case imported(TriggerDefinition, SourceLocation, leftOut: [String])
        /// A trigger Switchyard cannot run, and why.
        case leftOut(String)
    }

    static func read(_ node: YAMLNode, reader: inout ConfigurationReader) -> Outcome? {
        guard let pairs = reader.mapping(node, "a trigger") else { return nil }
        var leftOut: [String] = []
        func require(_ key: String, in pairs: [(key: String, keyNode: YAMLNode, value: YAMLNode)], at node: YAMLNode)
            -> YAMLNode?
        {
            if let value = pairs[key] { return value }
            reader.error("missing required key '\(key)'", at: node)
            return nil
        }
        let nameNode = require("name", in: pairs, at: node)
        let name = nameNode.flatMap { reader.string($0, "'name'") }
        if let name, let nameNode, !TriggerDefinition.isValidName(name) {
            reader.error("trigger name '\(name)' may only contain letters, digits, '_' and '-'", at: nameNode)
        }
        let disabled = pairs["disabled"].flatMap { reader.bool($0, "'disabled'") } ?? false

        // The current form names the function under event_processors; the legacy form at the top level.
        var functionNode = pairs["function_name"]
        if let processors = pairs["event_processors"],
            let processorPairs = reader.mapping(processors, "'event_processors'")
        {
            if let function = processorPairs["FUNCTION"], let functionPairs = reader.mapping(function, "'FUNCTION'"),
                let config = functionPairs["config"], let configPairs = reader.mapping(config, "'config'"),
                let nested = configPairs["function_name"]
            {
                functionNode = nested
            } else if functionNode == nil, processorPairs["AWS_EVENTBRIDGE"] != nil {
                return .leftOut(
                    "trigger '\(name ?? "?")' left out: it sends its events to an AWS EventBridge event processor, which Switchyard cannot reach; only triggers that call a function run"
                )
            }
        }
        let function = functionNode.flatMap { reader.string($0, "'function_name'") }
        if functionNode == nil {
            reader.error("trigger calls no function (give event_processors.FUNCTION.config.function_name)", at: node)
        }
        var errorHandler: String?
        if let handler = pairs["error_handler"], let handlerPairs = reader.mapping(handler, "'error_handler'"),
            let config = handlerPairs["config"].flatMap({ reader.mapping($0, "'error_handler.config'") }),
            config["enabled"].flatMap({ reader.bool($0, "'error_handler.config.enabled'") }) == true
        {
            errorHandler = config["function_name"].flatMap { reader.string($0, "'function_name'") } ?? "?"
        }

        let configNode = require("config", in: pairs, at: node)
        let config = configNode.flatMap { reader.mapping($0, "'config'") } ?? []
        var kind: TriggerDefinition.Kind?
        if let typeNode = require("type", in: pairs, at: node), let type = reader.string(typeNode, "'type'"),
            let configNode
        {
            switch type {
            case "DATABASE":
                let trigger = database(config, at: configNode, reader: &reader)
                kind = trigger.map { .database($0) }
                // Kept, so the trigger reads as in Atlas, but noted: nothing here ever fires them.
                for operation in (trigger?.operations ?? []).sorted() where operation.isSharding {
                    leftOut.append(
                        "operation type '\(operation.rawValue)' kept but never fires: Switchyard's store has no sharding"
                    )
                }
                if config["maximum_throughput"].flatMap({ reader.bool($0, "'config.maximum_throughput'") }) == true {
                    leftOut.append(
                        "'maximum_throughput' left out: Switchyard runs at most \(DeliveryOrder.appServicesMaxConcurrency) of its events at once, App Services' limit without it"
                    )
                }
            case "SCHEDULED": kind = scheduled(config, at: configNode, reader: &reader).map { .scheduled($0) }
            case "AUTHENTICATION":
                kind = authentication(config, at: configNode, reader: &reader).map { .authentication($0) }
            default:
                let types = ["DATABASE", "SCHEDULED", "AUTHENTICATION"]
                reader.error(
                    "unsupported trigger type '\(type)'\(ClosestMatch.hint(for: type, among: types))", at: typeNode)
            }
        }
        guard let name, let nameNode, let function, let kind else { return nil }
        var definition = TriggerDefinition(name: name, function: function, disabled: disabled, kind: kind)
        if let errorHandler {
            // `onFailure` runs the handler with the event whose last attempt failed.
            if errorHandler != "?" {
                definition.onFailure = errorHandler
            } else {
                leftOut.append(
                    "error handler '\(errorHandler)' left out: Switchyard retries a failed event, then suspends the trigger (ordered) or dead-letters the event (unordered)"
                )
            }
        }
        return .imported(definition, nameNode.location, leftOut: leftOut)
    }

    /// Strings, or arrays of strings, as `operation_types` / `operation_type` come.
    static func words(_ node: YAMLNode, _ what: String, reader: inout ConfigurationReader) -> [(String, YAMLNode)] {
        if case .sequence(let items) = node.value {
            return items.compactMap { item in reader.string(item, what).map { ($0, item) } }
        }
        return reader.string(node, what).map { [($0, node)] } ?? []
    }

    private static func database(
        _ config: [(key: String, keyNode: YAMLNode, value: YAMLNode)], at node: YAMLNode,
        reader: inout ConfigurationReader
    ) -> DatabaseTrigger? {
        let database = config["database"].flatMap { reader.string($0, "'config.database'") } ?? ""
        let collection = config["collection"].flatMap { reader.string($0, "'config.collection'") } ?? ""
        let scope: WatchScope =
            database.isEmpty
            ? .deployment
            : collection.isEmpty ? .database(database) : .collection(database: database, collection: collection)
        var operations: Set<DatabaseOperation> = []
        var valid = true
        if let typesNode = config["operation_types"] ?? config["operation_type"] {
            for (text, item) in words(typesNode, "an operation type", reader: &reader) {
                if let operation = DatabaseOperation(rawValue: text.uppercased()) {
                    guard operation.isAllowed(in: scope) else {
                        reader.error(
                            "operation type '\(operation.rawValue)' is only for \(operation.allowedPlacement)",
                            at: item)
                        valid = false
                        continue
                    }
                    operations.insert(operation)
                } else {
                    let names = DatabaseOperation.allCases.map(\.rawValue)
                    reader.error(
                        "unsupported operation type '\(text)'\(ClosestMatch.hint(for: text, among: names))", at: item)
                    valid = false
                }
            }
        }
        if operations.isEmpty, valid {
            reader.error("'config.operation_types' must list at least one operation type", at: node)
            valid = false
        }
        var trigger = DatabaseTrigger(scope: scope, operations: operations)
        func flag(_ key: String) -> Bool {
            config[key].flatMap { reader.bool($0, "'config.\(key)'") } ?? false
        }
        trigger.fullDocument = flag("full_document")
        trigger.fullDocumentBeforeChange = flag("full_document_before_change")
        trigger.skipCatchupEvents = flag("skip_catchup_events")
        trigger.tolerateResumeErrors = flag("tolerate_resume_errors")
        // App Services runs an unordered trigger's events up to its own limit at once; an export names no other.
        if flag("unordered") { trigger.delivery = .unordered(maxConcurrency: DeliveryOrder.appServicesMaxConcurrency) }
        for key in ["match", "project"] {
            guard let documentNode = config[key], !documentNode.isNull else { continue }
            guard let document = expression(documentNode, "'config.\(key)'", reader: &reader) else {
                valid = false
                continue
            }
            if key == "match" { trigger.match = document } else { trigger.project = document }
        }
        return valid ? trigger : nil
    }

    /// An object, or (as the Admin API sometimes stores them) a string holding one.
    private static func expression(_ node: YAMLNode, _ what: String, reader: inout ConfigurationReader) -> BSONDocument?
    {
        if case .scalar(let text, isPlain: false) = node.value {
            var inner = ConfigurationReader(file: reader.file)
            let document = JSONText.parse(text, reader: &inner).flatMap { inner.document($0, rules: .json) }
            guard inner.errors.isEmpty, let document else {
                reader.error("\(what) must be an object or a string holding a JSON object", at: node)
                return nil
            }
            return document
        }
        return reader.document(node, rules: .json)
    }

    private static func scheduled(
        _ config: [(key: String, keyNode: YAMLNode, value: YAMLNode)], at node: YAMLNode,
        reader: inout ConfigurationReader
    ) -> ScheduledTrigger? {
        let skip = config["skip_catchup_events"].flatMap { reader.bool($0, "'config.skip_catchup_events'") } ?? false
        guard let scheduleNode = config["schedule"] else {
            reader.error(
                "missing required key 'schedule' (basic schedules cannot be exported; use a CRON expression)", at: node)
            return nil
        }
        guard let text = reader.string(scheduleNode, "'config.schedule'") else { return nil }
        do {
            return ScheduledTrigger(schedule: try CronSchedule(text), skipCatchupEvents: skip)
        } catch {
            reader.error(error.message, at: TriggerReader.columnInside(scheduleNode, offset: error.offset))
            return nil
        }
    }

    private static func authentication(
        _ config: [(key: String, keyNode: YAMLNode, value: YAMLNode)], at node: YAMLNode,
        reader: inout ConfigurationReader
    ) -> AuthenticationTrigger? {
        var operation: AuthenticationOperation?
        if let operationNode = config["operation_type"] ?? config["operation_types"] {
            let found = words(operationNode, "an operation type", reader: &reader)
            if found.count == 1, let parsed = AuthenticationOperation(rawValue: found[0].0.lowercased()) {
                operation = parsed
            } else {
                reader.error("'config.operation_type' must be one of CREATE, LOGIN or DELETE", at: operationNode)
            }
        } else {
            reader.error("missing required key 'operation_type'", at: node)
        }
        var providers: Set<AuthenticationProvider> = []
        var valid = true
        if let providersNode = config["providers"] {
            for (text, item) in words(providersNode, "a provider", reader: &reader) {
                if let provider = AuthenticationProvider(rawValue: text) {
                    providers.insert(provider)
                } else {
                    let names = AuthenticationProvider.allCases.map(\.rawValue)
                    reader.error(
                        "unsupported authentication provider '\(text)'\(ClosestMatch.hint(for: text, among: names))",
                        at: item)
                    valid = false
                }
            }
        }
        if providers.isEmpty, valid {
            reader.error("'config.providers' must list at least one provider", at: config["providers"] ?? node)
            valid = false
        }
        guard valid, let operation else { return nil }
        return AuthenticationTrigger(operation: operation, providers: providers)
    }
}
