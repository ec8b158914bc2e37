import BSON

extension AppDefinition {
    /// Parses and validates `triggers.yaml`. With `registeredFunctions`, every function a trigger calls or
    /// the `functions:` section configures must be one of them.
    package static func parse(
        _ text: String, file: String = "triggers.yaml", registeredFunctions: Set<String>? = nil
    ) throws(ConfigurationErrors) -> AppDefinition {
        var reader = ConfigurationReader(file: file)
        let definition = read(text, reader: &reader, registeredFunctions: registeredFunctions)
        guard reader.errors.isEmpty, let definition else {
            throw ConfigurationErrors(reader.errors)
        }
        return definition
    }

    static let topLevelKeys = [
        "appId", "triggers", "functions", "auth", "functionTimeout", "messaging", "allowedRequestOrigins", "rules",
        "indexes", "endpoints", "logForwarders", "store",
    ]

    /// Reads what it can, reporting every problem into `reader`.
    static func read(
        _ text: String, reader: inout ConfigurationReader, registeredFunctions: Set<String>?
    ) -> AppDefinition? {
        let root: YAMLNode
        do {
            root = try YAMLParser.parse(text, file: reader.file)
        } catch {
            reader.error(error.message, at: error.location)
            return nil
        }
        guard let pairs = reader.mapping(root, "the top level of \(reader.file)") else { return nil }
        reader.rejectUnknownKeys(pairs, known: topLevelKeys)
        var definition = AppDefinition()
        if let node = pairs["appId"], !node.isNull { definition.appId = reader.string(node, "'appId'") }
        if let node = pairs["triggers"], !node.isNull, let items = reader.sequence(node, "'triggers'") {
            var firstByName: [String: SourceLocation] = [:]
            for item in items {
                guard let trigger = TriggerReader.read(item, reader: &reader, registeredFunctions: registeredFunctions)
                else { continue }
                if let first = firstByName[trigger.definition.name] {
                    reader.error(
                        "duplicate trigger name '\(trigger.definition.name)'", at: trigger.nameLocation,
                        notes: [reader.note("'\(trigger.definition.name)' is first defined here", at: first)])
                } else {
                    firstByName[trigger.definition.name] = trigger.nameLocation
                }
                definition.triggers.append(trigger.definition)
            }
        }
        if let node = pairs["functions"], !node.isNull {
            definition.functions = readFunctions(node, reader: &reader, registeredFunctions: registeredFunctions)
        }
        if let node = pairs["auth"], !node.isNull { definition.auth = readAuth(node, reader: &reader) }
        if let node = pairs["functionTimeout"], let timeout = readTimeout(node, "'functionTimeout'", reader: &reader) {
            definition.functionTimeout = timeout
        }
        if let node = pairs["messaging"], !node.isNull { definition.messaging = readMessaging(node, reader: &reader) }
        if let node = pairs["allowedRequestOrigins"], !node.isNull,
            let items = reader.sequence(node, "'allowedRequestOrigins'")
        {
            definition.allowedRequestOrigins = items.compactMap { reader.string($0, "an allowed request origin") }
        }
        if let node = pairs["rules"], !node.isNull {
            definition.rules = RuleReader(scalars: .yaml).readSection(node, reader: &reader)
        }
        if let node = pairs["indexes"], !node.isNull { definition.indexes = readIndexes(node, reader: &reader) }
        if let node = pairs["endpoints"], !node.isNull {
            definition.endpoints = HTTPEndpoint.readSection(
                node, "'endpoints'", reader: &reader, registeredFunctions: registeredFunctions)
        }
        if let node = pairs["store"], !node.isNull { definition.store = readStore(node, reader: &reader) }
        if let node = pairs["logForwarders"], !node.isNull {
            definition.logForwarders = readLogForwarders(
                node, reader: &reader, registeredFunctions: registeredFunctions)
        }
        return definition
    }

    static func checkFunction(
        _ name: String, at location: SourceLocation, registered: Set<String>, reader: inout ConfigurationReader
    ) {
        guard !registered.contains(name) else { return }
        let sorted = registered.sorted()
        var known = sorted.prefix(20).joined(separator: ", ")
        if sorted.count > 20 { known += ", … (\(sorted.count - 20) more)" }
        let suggestion = ClosestMatch.suggestion(for: name, among: sorted).map { "did you mean '\($0)'? " } ?? ""
        let list = sorted.isEmpty ? "no functions are registered" : "registered: \(known)"
        reader.error("unknown function '\(name)' (\(suggestion)\(list))", at: location)
    }

    static let functionKeys = ["private", "runAsSystem", "canEvaluate", "timeout"]

    /// A positive duration.
    private static func readTimeout(_ node: YAMLNode, _ what: String, reader: inout ConfigurationReader) -> Duration? {
        guard let duration = reader.duration(node, what) else { return nil }
        guard duration > .zero else {
            reader.error("\(what) must be longer than 0ms", at: node)
            return nil
        }
        return duration
    }

    private static func readFunctions(
        _ node: YAMLNode, reader: inout ConfigurationReader, registeredFunctions: Set<String>?
    ) -> [String: FunctionSettings] {
        guard let entries = reader.mapping(node, "'functions'") else { return [:] }
        var functions: [String: FunctionSettings] = [:]
        for entry in entries {
            if let registeredFunctions {
                checkFunction(entry.key, at: entry.keyNode.location, registered: registeredFunctions, reader: &reader)
            }
            var settings = FunctionSettings()
            if !entry.value.isNull, let pairs = reader.mapping(entry.value, "function '\(entry.key)'") {
                reader.rejectUnknownKeys(pairs, known: functionKeys)
                if let v = pairs["private"], let b = reader.bool(v, "'private'") { settings.isPrivate = b }
                if let v = pairs["runAsSystem"], let b = reader.bool(v, "'runAsSystem'") { settings.runAsSystem = b }
                if let v = pairs["canEvaluate"], !v.isNull, let d = reader.document(v, rules: .yaml) {
                    settings.canEvaluate = d
                }
                if let v = pairs["timeout"], let t = readTimeout(v, "'timeout'", reader: &reader) {
                    settings.timeout = t
                }
            }
            functions[entry.key] = settings
        }
        return functions
    }

    static let authKeys = ["providers", "customUserData", "emailPassword"]
    static let customUserDataKeys = ["database", "collection", "userIdField", "enabled"]

    private static func readAuth(_ node: YAMLNode, reader: inout ConfigurationReader) -> AuthSettings {
        var auth = AuthSettings()
        guard let pairs = reader.mapping(node, "'auth'") else { return auth }
        reader.rejectUnknownKeys(pairs, known: authKeys)
        if let v = pairs["providers"], !v.isNull { auth.providers = TriggerReader.providers(v, reader: &reader) ?? [] }
        if let v = pairs["customUserData"], !v.isNull, let fields = reader.mapping(v, "'customUserData'") {
            reader.rejectUnknownKeys(fields, known: customUserDataKeys)
            var values: [String: String] = [:]
            for key in ["database", "collection", "userIdField"] {
                if let field = fields[key] {
                    values[key] = reader.string(field, "'\(key)'")
                } else {
                    reader.error("missing required key '\(key)' in 'customUserData'", at: v)
                }
            }
            let enabled = fields["enabled"].flatMap { reader.bool($0, "'enabled'") } ?? true
            if let database = values["database"], let collection = values["collection"],
                let userIdField = values["userIdField"]
            {
                auth.customUserData = AuthSettings.CustomUserData(
                    database: database, collection: collection, userIdField: userIdField, enabled: enabled)
            }
        }
        if let v = pairs["emailPassword"], !v.isNull { auth.emailPassword = readEmailPassword(v, reader: &reader) }
        return auth
    }

    /// `auth.emailPassword`: a function it runs must be named, and a name without `run…: true` is kept but idle.
    private static func readEmailPassword(_ node: YAMLNode, reader: inout ConfigurationReader) -> EmailPasswordSettings?
    {
        guard let pairs = reader.mapping(node, "'emailPassword'") else { return nil }
        reader.rejectUnknownKeys(pairs, known: EmailPasswordSettings.keys)
        var settings = EmailPasswordSettings()
        func flag(_ key: String) -> Bool { pairs[key].flatMap { reader.bool($0, "'\(key)'") } ?? false }
        func text(_ key: String) -> String? {
            guard let v = pairs[key], !v.isNull, let text = reader.string(v, "'\(key)'") else { return nil }
            if text.isEmpty { reader.error("'\(key)' must not be empty", at: v) }
            return text.isEmpty ? nil : text
        }
        settings.autoConfirm = flag("autoConfirm")
        settings.confirmEmailURL = text("confirmEmailUrl")
        settings.runConfirmationFunction = flag("runConfirmationFunction")
        settings.confirmationFunction = text("confirmationFunction")
        settings.resetPasswordURL = text("resetPasswordUrl")
        settings.runResetFunction = flag("runResetFunction")
        settings.resetFunction = text("resetFunction")
        for (run, function) in [
            ("runConfirmationFunction", settings.confirmationFunction), ("runResetFunction", settings.resetFunction),
        ] where function == nil {
            if let v = pairs[run], reader.bool(v, "'\(run)'") == true {
                let named = run == "runResetFunction" ? "resetFunction" : "confirmationFunction"
                reader.error("'\(run): true' needs '\(named)', the function to run", at: v)
            }
        }
        return settings
    }
}
