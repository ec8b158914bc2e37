import BSON
import Foundation

/// Reads an App Services export (from `appservices pull`, `realm-cli export` or the UI) into an
/// `AppServicesImport`. It reads `realm_config.json` (or the legacy `config.json`) for the app id,
/// `triggers/*.json` in both the current form (`event_processors.FUNCTION.config.function_name`) and the legacy
/// one (top-level `function_name`), `values/*.json`, `environments/*.json`, `functions/config.json`,
/// `auth/providers.json` and `auth/custom_user_data.json`. Settings Switchyard has no use for (service ids,
/// cluster names, throughput flags) are ignored; every problem is reported with its file and position.
package enum AppServicesImporter {
    /// What only an export has at its root: one of these is there, or the directory is something else.
    static let exportEntries = [
        "realm_config.json", "config.json", "triggers", "functions", "values", "auth", "environments", "data_sources",
    ]

    package static func read(exportDirectory: String) throws(ConfigurationErrors) -> AppServicesImport {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: exportDirectory)) ?? []
        guard entries.contains(where: exportEntries.contains) else {
            throw ConfigurationErrors([
                ConfigurationError(
                    file: exportDirectory, location: nil,
                    message:
                        "not an App Services export: an export (appservices pull, realm-cli export) holds realm_config.json (config.json in the legacy form) with triggers/, functions/, values/, auth/ and environments/ beside it"
                )
            ])
        }
        var session = ImportSession(root: exportDirectory)
        let result = session.run()
        guard session.errors.isEmpty else { throw ConfigurationErrors(session.errors) }
        return result
    }
}

/// One import: the files read so far and the problems found in them.
private struct ImportSession {
    let root: String
    var errors: [ConfigurationError] = []

    init(root: String) {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
    }

    func path(_ relative: String) -> String { root == "." || root.isEmpty ? relative : "\(root)/\(relative)" }

    func jsonFiles(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path(directory))) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { "\(directory)/\($0)" }
    }

    /// Parses one JSON file, handing its root node and a reader to `body`; collects the reader's errors.
    mutating func withJSON<T>(_ relative: String, _ body: (YAMLNode, inout ConfigurationReader) -> T?) -> T? {
        let file = path(relative)
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        var reader = ConfigurationReader(file: file)
        defer { errors += reader.errors }
        guard let text = String(data: data, encoding: .utf8) else {
            reader.error("is not valid UTF-8", at: nil as SourceLocation?)
            return nil
        }
        guard let node = JSONText.parse(text, reader: &reader) else { return nil }
        return body(node, &reader)
    }

    mutating func run() -> AppServicesImport {
        var definition = AppDefinition()
        let root = withJSON("realm_config.json", Self.rootSettings) ?? withJSON("config.json", Self.rootSettings)
        definition.appId = root?.appId
        definition.allowedRequestOrigins = root?.allowedRequestOrigins ?? []
        var referenced: Set<String> = []
        var firstByName: [String: (file: String, location: SourceLocation)] = [:]
        for file in jsonFiles(in: "triggers") {
            guard let (trigger, location) = withJSON(file, { TriggerImport.read($0, reader: &$1) }) else { continue }
            if let first = firstByName[trigger.name] {
                errors.append(
                    ConfigurationError(
                        file: path(file), location: location, message: "duplicate trigger name '\(trigger.name)'",
                        notes: [
                            .init(
                                file: first.file, location: first.location,
                                message: "'\(trigger.name)' is first defined here")
                        ]))
                continue
            }
            firstByName[trigger.name] = (path(file), location)
            definition.triggers.append(trigger)
            referenced.insert(trigger.function)
        }
        definition.functions = withJSON("functions/config.json", Self.functionSettings) ?? [:]
        referenced.formUnion(definition.functions.keys)
        definition.auth.providers = withJSON("auth/providers.json", Self.enabledProviders) ?? []
        definition.auth.customUserData = withJSON("auth/custom_user_data.json", Self.customUserData) ?? nil

        var values = ValueDefinitions()
        for file in jsonFiles(in: "values") {
            if let entry = withJSON(file, Self.value) { values.entries.append(entry) }
        }
        var environments: [AppEnvironment: ValueDefinitions] = [:]
        for file in jsonFiles(in: "environments") {
            let name = String(file.dropFirst("environments/".count).dropLast(".json".count))
            guard let environment = AppEnvironment(rawValue: name) else {
                let names = AppEnvironment.allCases.map(\.rawValue)
                errors.append(
                    ConfigurationError(
                        file: path(file), location: nil,
                        message: "unknown environment '\(name)'\(ClosestMatch.hint(for: name, among: names))"))
                continue
            }
            environments[environment] = withJSON(file, Self.environmentValues)
        }
        return AppServicesImport(
            definition: definition, values: values, environments: environments, functionsToPort: referenced.sorted())
    }

    /// The root configuration's `app_id` and `allowed_request_origins`; nil when it names no app id.
    static func rootSettings(_ node: YAMLNode, reader: inout ConfigurationReader) -> (
        appId: String, allowedRequestOrigins: [String]
    )? {
        guard let pairs = reader.mapping(node, "the app configuration"), let id = pairs["app_id"],
            let appId = reader.string(id, "'app_id'")
        else { return nil }
        var origins: [String] = []
        if let list = pairs["allowed_request_origins"], !list.isNull,
            let items = reader.sequence(list, "'allowed_request_origins'")
        {
            origins = items.compactMap { reader.string($0, "an allowed request origin") }
        }
        return (appId, origins)
    }

    static func functionSettings(_ node: YAMLNode, reader: inout ConfigurationReader) -> [String: FunctionSettings]? {
        guard let items = reader.sequence(node, "functions/config.json") else { return nil }
        var functions: [String: FunctionSettings] = [:]
        for item in items {
            guard let pairs = reader.mapping(item, "a function"),
                let nameNode = pairs["name"] ?? missing("name", item, &reader),
                let name = reader.string(nameNode, "'name'")
            else { continue }
            var settings = FunctionSettings()
            if let v = pairs["private"], let b = reader.bool(v, "'private'") { settings.isPrivate = b }
            if let v = pairs["run_as_system"], let b = reader.bool(v, "'run_as_system'") { settings.runAsSystem = b }
            if let v = pairs["can_evaluate"], !v.isNull, let d = reader.document(v, rules: .json) {
                settings.canEvaluate = d
            }
            functions[name] = settings
        }
        return functions
    }

    /// Providers that are not disabled; `providers.json` is an object keyed by name (or, in old exports, a list).
    static func enabledProviders(_ node: YAMLNode, reader: inout ConfigurationReader) -> Set<AuthenticationProvider>? {
        let entries: [YAMLNode]
        switch node.value {
        case .mapping(let pairs): entries = pairs.map(\.value)
        case .sequence(let items): entries = items
        case .scalar: entries = []
        }
        var providers: Set<AuthenticationProvider> = []
        for entry in entries {
            guard let pairs = reader.mapping(entry, "a provider"),
                let typeNode = pairs["type"] ?? missing("type", entry, &reader),
                let type = reader.string(typeNode, "'type'")
            else { continue }
            if let v = pairs["disabled"], reader.bool(v, "'disabled'") == true { continue }
            guard let provider = AuthenticationProvider(rawValue: type) else {
                let names = AuthenticationProvider.allCases.map(\.rawValue)
                reader.error(
                    "unsupported authentication provider '\(type)'\(ClosestMatch.hint(for: type, among: names))",
                    at: typeNode)
                continue
            }
            providers.insert(provider)
        }
        return providers
    }

    static func customUserData(_ node: YAMLNode, reader: inout ConfigurationReader) -> AuthSettings.CustomUserData?? {
        guard let pairs = reader.mapping(node, "custom user data") else { return nil }
        let enabled = pairs["enabled"].flatMap { reader.bool($0, "'enabled'") } ?? false
        var fields: [String] = []
        for key in ["database_name", "collection_name", "user_id_field"] {
            if let v = pairs[key], let text = reader.string(v, "'\(key)'"), !text.isEmpty {
                fields.append(text)
            } else if enabled {
                reader.error("enabled custom user data needs '\(key)'", at: pairs[key] ?? node)
            }
        }
        guard fields.count == 3 else { return .some(nil) }
        return .some(
            AuthSettings.CustomUserData(
                database: fields[0], collection: fields[1], userIdField: fields[2], enabled: enabled))
    }

    /// `values/<name>.json`: `{"name": …, "value": …, "from_secret": bool}`.
    static func value(_ node: YAMLNode, reader: inout ConfigurationReader) -> ValueDefinitions.Entry? {
        guard let pairs = reader.mapping(node, "a value"),
            let nameNode = pairs["name"] ?? missing("name", node, &reader),
            let name = reader.string(nameNode, "'name'"),
            let valueNode = pairs["value"] ?? missing("value", node, &reader)
        else { return nil }
        let fromSecret = pairs["from_secret"].flatMap { reader.bool($0, "'from_secret'") } ?? false
        if fromSecret {
            guard let secret = valueNode.scalar, !valueNode.isNull, !secret.isEmpty else {
                reader.error("a value from a secret needs the secret's name as 'value'", at: valueNode)
                return nil
            }
            return .init(name: name, value: .secret(name: secret))
        }
        return reader.bson(valueNode, rules: .json).map { .init(name: name, value: .plain($0)) }
    }

    /// `environments/<name>.json`: `{"values": {…}}`, or a bare object of values in old exports.
    static func environmentValues(_ node: YAMLNode, reader: inout ConfigurationReader) -> ValueDefinitions? {
        guard let pairs = reader.mapping(node, "an environment") else { return nil }
        let valuesNode = pairs.count == 1 && pairs[0].key == "values" ? pairs[0].value : node
        return ValueDefinitions.read(valuesNode, reader: &reader).definitions
    }

    static func missing(_ key: String, _ node: YAMLNode, _ reader: inout ConfigurationReader) -> YAMLNode? {
        reader.error("missing required key '\(key)'", at: node)
        return nil
    }
}
