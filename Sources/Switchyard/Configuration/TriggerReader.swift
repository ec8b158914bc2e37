import BSON

/// Reads one entry of `triggers:` into a `TriggerDefinition`, reporting every problem it finds.
struct TriggerReader {
    let definition: TriggerDefinition
    let nameLocation: SourceLocation

    static let commonKeys = ["name", "type", "function", "disabled"]
    static let keysByType: [(type: String, keys: [String])] = [
        (
            "database",
            [
                "database", "collection", "operations", "fullDocument", "fullDocumentBeforeChange", "match", "project",
                "ordered", "maxConcurrency", "skipCatchupEvents", "tolerateResumeErrors", "retry", "onSuspend",
                "webhook", "onFailure",
            ]
        ),
        ("scheduled", ["schedule", "skipCatchupEvents", "onSuspend", "webhook", "onFailure"]),
        ("authentication", ["operation", "providers", "webhook", "onFailure"]),
    ]
    static let retryKeys = ["maxAttempts", "initialBackoff", "maxBackoff"]
    static let webhookKeys = ["url", "secret", "headers", "timeout"]

    static func read(
        _ node: YAMLNode, reader: inout ConfigurationReader, registeredFunctions: Set<String>?
    ) -> TriggerReader? {
        guard let pairs = reader.mapping(node, "a trigger") else { return nil }
        let allKeys = commonKeys + keysByType.flatMap(\.keys)
        let name = pairs["name"].flatMap { reader.string($0, "'name'") }
        let described = name.map { " in trigger '\($0)'" } ?? ""
        func require(_ key: String) -> YAMLNode? {
            if let value = pairs[key] { return value }
            reader.error("missing required key '\(key)'\(described)", at: node)
            return nil
        }

        var typeName: String?
        if let typeNode = require("type"), let text = reader.string(typeNode, "'type'") {
            let types = keysByType.map(\.type)
            if types.contains(text.lowercased()) {
                typeName = text.lowercased()
            } else {
                reader.error(
                    "unknown trigger type '\(text)'\(ClosestMatch.hint(for: text, among: types)) (expected database, scheduled or authentication)",
                    at: typeNode)
            }
        }
        let typeKeys = keysByType.first { $0.type == typeName }?.keys
        for pair in pairs where !commonKeys.contains(pair.key) && !(typeKeys?.contains(pair.key) ?? false) {
            if let typeName, allKeys.contains(pair.key) {
                reader.error("'\(pair.key)' is not a key of \(typeName) triggers", at: pair.keyNode)
            } else if !allKeys.contains(pair.key) {
                let preferred = commonKeys + (typeKeys ?? [])
                let suggestion =
                    ClosestMatch.suggestion(for: pair.key, among: preferred)
                    ?? ClosestMatch.suggestion(for: pair.key, among: allKeys)
                reader.error(
                    "unknown key '\(pair.key)'\(suggestion.map { " (did you mean '\($0)'?)" } ?? "")", at: pair.keyNode)
            }
        }

        if let name, let nameNode = pairs["name"], !TriggerDefinition.isValidName(name) {
            reader.error(
                "trigger name '\(name)' may only contain letters, digits, '_' and '-'", at: nameNode)
        }
        let nameNode = require("name")
        // Only where the type takes it: the key check above reports it elsewhere.
        let webhookNode = typeKeys?.contains("webhook") == true ? pairs["webhook"] : nil
        let webhook = webhookNode.flatMap { Self.webhook($0, reader: &reader) }
        var function: String?
        if webhookNode != nil {
            if let functionNode = pairs["function"] {
                reader.error(
                    "'function' and 'webhook' both take the events\(described): give one of them", at: functionNode)
            } else if webhook != nil {
                function = ""
            }
        } else {
            let functionNode = require("function")
            function = functionNode.flatMap { reader.string($0, "'function'") }
            if let function, let functionNode, let registeredFunctions {
                AppDefinition.checkFunction(
                    function, at: functionNode.location, registered: registeredFunctions, reader: &reader)
            }
        }
        let disabled = pairs["disabled"].flatMap { reader.bool($0, "'disabled'") } ?? false
        // Only where the type takes them: the key check above reports them elsewhere.
        func callable(_ key: String) -> String? {
            guard let node = pairs[key], typeKeys?.contains(key) == true, let name = reader.string(node, "'\(key)'")
            else { return nil }
            guard !name.isEmpty else {
                reader.error("'\(key)' must name a function (leave it out for none)", at: node)
                return nil
            }
            if let registeredFunctions {
                AppDefinition.checkFunction(name, at: node.location, registered: registeredFunctions, reader: &reader)
            }
            return name
        }
        // `onSuspend:` names a callable, or posts the suspension: `{webhook: {url, …}}`.
        var onSuspend: String?
        var suspensionWebhook: TriggerWebhook?
        if let node = pairs["onSuspend"], typeKeys?.contains("onSuspend") == true, case .mapping = node.value {
            if let alertPairs = reader.mapping(node, "'onSuspend'") {
                reader.rejectUnknownKeys(alertPairs, known: ["webhook"])
                if let webhookNode = alertPairs["webhook"] {
                    suspensionWebhook = Self.webhook(webhookNode, reader: &reader)
                } else {
                    reader.error("'onSuspend' takes a function's name or {webhook: {url: …}}", at: node)
                }
            }
        } else {
            onSuspend = callable("onSuspend")
        }
        let onFailure = callable("onFailure")

        let kind: TriggerDefinition.Kind?
        switch typeName {
        case "database": kind = database(pairs, at: node, described: described, reader: &reader).map { .database($0) }
        case "scheduled":
            kind = scheduled(pairs, at: node, described: described, reader: &reader).map { .scheduled($0) }
        case "authentication":
            kind = authentication(pairs, at: node, described: described, reader: &reader).map { .authentication($0) }
        default: kind = nil
        }
        guard let name, let nameNode, let function, let kind else { return nil }
        return TriggerReader(
            definition: TriggerDefinition(
                name: name, function: function, disabled: disabled, kind: kind, onSuspend: onSuspend,
                webhook: webhook, onFailure: onFailure, suspensionWebhook: suspensionWebhook),
            nameLocation: nameNode.location)
    }

    private static func database(
        _ pairs: [(key: String, keyNode: YAMLNode, value: YAMLNode)], at node: YAMLNode, described: String,
        reader: inout ConfigurationReader
    ) -> DatabaseTrigger? {
        var valid = true
        var scope: WatchScope?
        if let databaseNode = pairs["database"] {
            if let database = reader.string(databaseNode, "'database'") {
                let collectionNode = pairs["collection"]
                let collection = collectionNode.flatMap { reader.string($0, "'collection'") }
                if database == "*" {
                    if let collectionNode {
                        reader.error("'collection' needs a specific database, not '*'", at: collectionNode)
                        valid = false
                    }
                    scope = .deployment
                } else if database.isEmpty {
                    reader.error("'database' must not be empty (use \"*\" to watch every database)", at: databaseNode)
                } else if let collection, let collectionNode {
                    if collection.isEmpty {
                        reader.error(
                            "'collection' must not be empty (leave it out to watch the whole database)",
                            at: collectionNode)
                    } else {
                        scope = .collection(database: database, collection: collection)
                    }
                } else {
                    scope = .database(database)
                }
            }
        } else {
            reader.error("missing required key 'database'\(described) (use \"*\" to watch every database)", at: node)
        }

        var operations: Set<DatabaseOperation> = []
        if let operationsNode = pairs["operations"] {
            if let items = reader.sequence(operationsNode, "'operations'") {
                if items.isEmpty {
                    reader.error(
                        "'operations' must list at least one operation type (INSERT, UPDATE, REPLACE, DELETE, "
                            + "or a DDL type such as CREATE_COLLECTION)", at: operationsNode)
                    valid = false
                }
                for item in items {
                    guard let text = reader.string(item, "an operation type") else {
                        valid = false
                        continue
                    }
                    guard let operation = DatabaseOperation(rawValue: text.uppercased()) else {
                        let names = DatabaseOperation.allCases.map(\.rawValue)
                        reader.error(
                            "unknown operation type '\(text)'\(ClosestMatch.hint(for: text, among: names))", at: item)
                        valid = false
                        continue
                    }
                    if let scope, !operation.isAllowed(in: scope) {
                        reader.error(
                            "operation type '\(operation.rawValue)' is only for \(operation.allowedPlacement)",
                            at: item)
                        valid = false
                        continue
                    }
                    if !operations.insert(operation).inserted {
                        reader.error("duplicate operation type '\(operation.rawValue)'", at: item)
                    }
                }
            } else {
                valid = false
            }
        } else {
            reader.error("missing required key 'operations'\(described)", at: node)
            valid = false
        }

        var trigger = DatabaseTrigger(scope: .deployment, operations: operations)
        if let v = pairs["fullDocument"], let b = reader.bool(v, "'fullDocument'") { trigger.fullDocument = b }
        if let v = pairs["fullDocumentBeforeChange"], let b = reader.bool(v, "'fullDocumentBeforeChange'") {
            trigger.fullDocumentBeforeChange = b
        }
        for (key, stage) in [("match", "$match"), ("project", "$project")] {
            guard let v = pairs[key], !v.isNull, let document = reader.document(v, rules: .yaml) else { continue }
            checkStage(stage, document, node: v, key: key, reader: &reader)
            if key == "match" { trigger.match = document } else { trigger.project = document }
        }
        if let v = pairs["skipCatchupEvents"], let b = reader.bool(v, "'skipCatchupEvents'") {
            trigger.skipCatchupEvents = b
        }
        if let v = pairs["tolerateResumeErrors"], let b = reader.bool(v, "'tolerateResumeErrors'") {
            trigger.tolerateResumeErrors = b
        }
        let order = pairs["ordered"].flatMap { deliveryOrder($0, reader: &reader) } ?? .ordered
        if let concurrencyNode = pairs["maxConcurrency"] {
            if order == .ordered {
                reader.error(
                    "'maxConcurrency' applies only to unordered or per-document triggers (add 'ordered: false' or "
                        + "'ordered: \(DeliveryOrder.byDocumentKeyName)')", at: concurrencyNode)
            } else if let limit = reader.integer(
                concurrencyNode, "'maxConcurrency'", in: DeliveryOrder.maxConcurrencyRange)
            {
                trigger.delivery =
                    order == .unordered ? .unordered(maxConcurrency: limit) : .byDocumentKey(maxConcurrency: limit)
            }
        } else {
            switch order {
            case .ordered: trigger.delivery = .ordered
            case .unordered: trigger.delivery = .unordered(maxConcurrency: DeliveryOrder.defaultMaxConcurrency)
            case .byDocumentKey: trigger.delivery = .byDocumentKey(maxConcurrency: DeliveryOrder.defaultMaxConcurrency)
            }
        }
        if let retryNode = pairs["retry"], !retryNode.isNull, let retry = retryPolicy(retryNode, reader: &reader) {
            trigger.retry = retry
        }
        guard valid, let scope else { return nil }
        trigger.scope = scope
        return trigger
    }

    /// `webhook: {url, secret?, headers?, timeout?}`.
    private static func webhook(_ node: YAMLNode, reader: inout ConfigurationReader) -> TriggerWebhook? {
        guard let pairs = reader.mapping(node, "'webhook'") else { return nil }
        reader.rejectUnknownKeys(pairs, known: webhookKeys)
        guard let urlNode = pairs["url"] else {
            reader.error("missing required key 'url' in 'webhook'", at: node)
            return nil
        }
        guard let url = reader.string(urlNode, "'webhook.url'") else { return nil }
        let lowered = url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), url.count > 8,
            !url.contains(where: { $0.isWhitespace })
        else {
            reader.error("'webhook.url' must be an http:// or https:// URL, not '\(url.prefix(200))'", at: urlNode)
            return nil
        }
        var webhook = TriggerWebhook(url: url)
        var valid = true
        if let secretNode = pairs["secret"] {
            if let name = reader.string(secretNode, "'webhook.secret'"), !name.isEmpty {
                webhook.secretName = name
            } else {
                reader.error(
                    "'webhook.secret' must name a secret (leave it out to send unsigned requests)", at: secretNode)
                valid = false
            }
        }
        if let headersNode = pairs["headers"], let headers = reader.mapping(headersNode, "'webhook.headers'") {
            for header in headers {
                guard let value = reader.string(header.value, "header '\(header.key)'") else {
                    valid = false
                    continue
                }
                let reserved = [
                    "content-type", "content-length", "host", "webhook-id", "webhook-timestamp",
                    "webhook-signature",
                ]
                if reserved.contains(header.key.lowercased()) {
                    reader.error("header '\(header.key)' is set by Switchyard itself", at: header.keyNode)
                    valid = false
                } else if header.key.isEmpty
                    || header.key.contains(where: { !$0.isASCII || $0.isWhitespace || $0 == ":" })
                    || value.contains(where: \.isNewline)
                {
                    reader.error("header '\(header.key.prefix(100))' is not a valid HTTP header", at: header.keyNode)
                    valid = false
                } else {
                    webhook.headers.append(.init(name: header.key, value: value))
                }
            }
        }
        if let timeoutNode = pairs["timeout"] {
            if let timeout = reader.duration(timeoutNode, "'webhook.timeout'"), timeout > .zero {
                webhook.timeout = timeout
            } else {
                valid = false
            }
        }
        return valid ? webhook : nil
    }

    /// What `ordered:` asks for: `true` (one event at a time), `false` (unordered) or `byDocumentKey`.
    private enum Order { case ordered, unordered, byDocumentKey }

    /// `byDocumentKey` reads the same quoted or not, as any name; `true` and `false` must be plain, as any bool.
    private static func deliveryOrder(_ node: YAMLNode, reader: inout ConfigurationReader) -> Order? {
        let text = node.isNull ? "" : node.scalar ?? ""
        if text == DeliveryOrder.byDocumentKeyName { return .byDocumentKey }
        if case .scalar(_, isPlain: true) = node.value {
            switch text.lowercased() {
            case "true": return .ordered
            case "false": return .unordered
            default: break
            }
        }
        // A quoted "true" needs no hint that it means true.
        let suggestion = ClosestMatch.suggestion(for: text, among: ["true", "false", DeliveryOrder.byDocumentKeyName])
            .flatMap { $0.lowercased() == text.lowercased() && $0 != DeliveryOrder.byDocumentKeyName ? nil : $0 }
        reader.error(
            "'ordered' must be true, false or \(DeliveryOrder.byDocumentKeyName)"
                + (suggestion.map { " (did you mean '\($0)'?)" } ?? ""), at: node)
        return nil
    }

    private static func retryPolicy(_ node: YAMLNode, reader: inout ConfigurationReader) -> RetryPolicy? {
        guard let pairs = reader.mapping(node, "'retry'") else { return nil }
        reader.rejectUnknownKeys(pairs, known: retryKeys)
        var policy = RetryPolicy()
        if let v = pairs["maxAttempts"], let n = reader.integer(v, "'maxAttempts'", in: 1...1000) {
            policy.maxAttempts = n
        }
        if let v = pairs["initialBackoff"], let d = reader.duration(v, "'initialBackoff'") { policy.initialBackoff = d }
        if let v = pairs["maxBackoff"], let d = reader.duration(v, "'maxBackoff'") { policy.maxBackoff = d }
        if policy.maxBackoff < policy.initialBackoff {
            reader.error(
                "'maxBackoff' (\(policy.maxBackoff.configurationText)) must not be shorter than 'initialBackoff' (\(policy.initialBackoff.configurationText))",
                at: pairs["maxBackoff"] ?? pairs["initialBackoff"] ?? node)
        }
        return policy
    }

    private static func scheduled(
        _ pairs: [(key: String, keyNode: YAMLNode, value: YAMLNode)], at node: YAMLNode, described: String,
        reader: inout ConfigurationReader
    ) -> ScheduledTrigger? {
        let skip = pairs["skipCatchupEvents"].flatMap { reader.bool($0, "'skipCatchupEvents'") } ?? false
        guard let scheduleNode = pairs["schedule"] else {
            reader.error("missing required key 'schedule'\(described)", at: node)
            return nil
        }
        guard let text = reader.string(scheduleNode, "'schedule'") else { return nil }
        do {
            return ScheduledTrigger(schedule: try CronSchedule(text), skipCatchupEvents: skip)
        } catch {
            reader.error(error.message, at: columnInside(scheduleNode, offset: error.offset))
            return nil
        }
    }

    /// The position of a character inside a single-line scalar (one further in for a quoted one).
    static func columnInside(_ node: YAMLNode, offset: Int) -> SourceLocation {
        guard case .scalar(let text, let isPlain) = node.value, !text.contains("\n"), !text.contains("\\") else {
            return node.location
        }
        return SourceLocation(line: node.location.line, column: node.location.column + offset + (isPlain ? 0 : 1))
    }

    private static func authentication(
        _ pairs: [(key: String, keyNode: YAMLNode, value: YAMLNode)], at node: YAMLNode, described: String,
        reader: inout ConfigurationReader
    ) -> AuthenticationTrigger? {
        var operation: AuthenticationOperation?
        if let operationNode = pairs["operation"] {
            if let text = reader.string(operationNode, "'operation'") {
                operation = AuthenticationOperation(rawValue: text.lowercased())
                if operation == nil {
                    let names = AuthenticationOperation.allCases.map(\.rawValue)
                    reader.error(
                        "unknown authentication operation '\(text)'\(ClosestMatch.hint(for: text, among: names)) (expected create, login or delete)",
                        at: operationNode)
                }
            }
        } else {
            reader.error("missing required key 'operation'\(described)", at: node)
        }
        var providers: Set<AuthenticationProvider>?
        if let providersNode = pairs["providers"] {
            providers = Self.providers(providersNode, reader: &reader)
            if providers?.isEmpty == true {
                reader.error("'providers' must list at least one authentication provider", at: providersNode)
                providers = nil
            }
        } else {
            reader.error("missing required key 'providers'\(described)", at: node)
        }
        guard let operation, let providers else { return nil }
        return AuthenticationTrigger(operation: operation, providers: providers)
    }

    /// A list of provider names; nil when any is unknown.
    static func providers(_ node: YAMLNode, reader: inout ConfigurationReader) -> Set<AuthenticationProvider>? {
        guard let items = reader.sequence(node, "'providers'") else { return nil }
        var providers: Set<AuthenticationProvider> = []
        var valid = true
        for item in items {
            guard let text = reader.string(item, "a provider") else {
                valid = false
                continue
            }
            guard let provider = AuthenticationProvider(rawValue: text) else {
                let names = AuthenticationProvider.allCases.map(\.rawValue)
                reader.error(
                    "unknown authentication provider '\(text)'\(ClosestMatch.hint(for: text, among: names)) (providers: \(names.joined(separator: ", ")))",
                    at: item)
                valid = false
                continue
            }
            providers.insert(provider)
        }
        return valid ? providers : nil
    }
}
