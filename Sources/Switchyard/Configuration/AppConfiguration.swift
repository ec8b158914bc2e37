import DocumentStore
import Foundation

/// An app's whole configuration for one environment, loaded from a directory:
///
/// - `triggers.yaml` (required): `appId`, `triggers`, `functions` (per-function settings) and `auth`;
/// - `values.json` (optional): name → value or secret reference;
/// - `environments/<environment>.json` (optional): `{"values": {…}}` overriding or adding values;
/// - `data_sources/<service>/…` (optional): data access rules and schemas in App Services' layout
///   (`DataAccessRules`);
/// - `http_endpoints/config.json` or `https_endpoints/config.json` (optional): custom HTTPS endpoints in App
///   Services' layout (`HTTPEndpoint`);
/// - `secrets.json` (optional, git-ignored): name → secret value, after `SWITCHYARD_SECRET_<NAME>`
///   environment variables.
package struct AppConfiguration: Sendable, Equatable {
    package var definition: AppDefinition
    package var environment: AppEnvironment
    package var values: AppValues
    /// The secrets the endpoints' validation names (`secret_name`), by name.
    package var endpointSecrets: [String: Secret]
    /// The secrets the triggers' webhooks sign with (`webhook.secret`), by name.
    package var webhookSecrets: [String: Secret]
    /// The PostgreSQL database `store:` names, its URL read from its secret when it names one; nil: SQLite.
    package var storeLocation: PostgreSQLLocation?

    package init(
        definition: AppDefinition, environment: AppEnvironment, values: AppValues,
        endpointSecrets: [String: Secret] = [:], webhookSecrets: [String: Secret] = [:],
        storeLocation: PostgreSQLLocation? = nil
    ) {
        self.definition = definition
        self.environment = environment
        self.values = values
        self.endpointSecrets = endpointSecrets
        self.webhookSecrets = webhookSecrets
        self.storeLocation = storeLocation
    }

    /// Where the app's data lives: the database `store:` names, else SQLite in `dataDirectory`.
    package func store(dataDirectory: String, acceptingDataLoss: Bool = false) -> StoreConfiguration {
        if let storeLocation { return StoreConfiguration(engine: .postgresql(storeLocation)) }
        return .sqlite(directory: dataDirectory, acceptingDataLoss: acceptingDataLoss)
    }

    package var triggers: [TriggerDefinition] { definition.triggers }
    package var functions: [String: FunctionSettings] { definition.functions }

    package static let triggersFile = "triggers.yaml"
    package static let valuesFile = "values.json"
    package static let secretsFile = "secrets.json"
    package static let environmentsDirectory = "environments"

    /// Loads and validates everything, reporting all problems at once.
    /// - Parameters:
    ///   - registeredFunctions: the functions the app implements; nil skips the check that triggers and
    ///     function settings name existing functions.
    ///   - variables: where `SWITCHYARD_SECRET_<NAME>` secrets are looked up (the process environment).
    package static func load(
        directory: String, environment: AppEnvironment = .development, registeredFunctions: Set<String>? = nil,
        variables: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationErrors) -> AppConfiguration {
        var errors: [ConfigurationError] = []
        func label(_ name: String) -> String {
            let trimmed = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
            return trimmed.isEmpty || trimmed == "." ? name : "\(trimmed)/\(name)"
        }
        func read(_ name: String, required: Bool) -> String? {
            let path = label(name)
            guard FileManager.default.fileExists(atPath: path) else {
                if required {
                    errors.append(ConfigurationError(file: path, location: nil, message: "file not found"))
                }
                return nil
            }
            let data: Data
            do {
                data = try LocalFile.contents(path)
            } catch {
                errors.append(ConfigurationError(file: path, location: nil, message: "cannot be read: \(error.reason)"))
                return nil
            }
            guard let text = String(data: data, encoding: .utf8) else {
                errors.append(ConfigurationError(file: path, location: nil, message: "is not valid UTF-8"))
                return nil
            }
            return text
        }

        var definition: AppDefinition?
        if let text = read(triggersFile, required: true) {
            var reader = ConfigurationReader(file: label(triggersFile))
            definition = AppDefinition.read(text, reader: &reader, registeredFunctions: registeredFunctions)
            errors += reader.errors
        }
        var rules = DataAccessRules.read(appDirectory: directory, errors: &errors) { name in
            read(name, required: false).map { (label(name), $0) }
        }
        if let yamlRules = definition?.rules {
            rules.merge(yamlRules, file: label(triggersFile), errors: &errors)
            definition?.rules = rules
        }

        for file in HTTPEndpoint.exportFiles {
            guard let text = read(file, required: false) else { continue }
            var reader = ConfigurationReader(file: label(file))
            if let node = JSONText.parse(text, reader: &reader) {
                let endpoints = HTTPEndpoint.readSection(
                    node, file, reader: &reader, registeredFunctions: registeredFunctions)
                if definition?.endpoints.isEmpty == false, !endpoints.isEmpty {
                    reader.error("endpoints are given both here and in \(triggersFile); keep one", at: node)
                }
                definition?.endpoints += endpoints
            }
            errors += reader.errors
        }

        // Each value remembers the file and position that declared it, for "secret not set" errors.
        var declared: [(entry: ValueDefinitions.Entry, file: String, location: SourceLocation?)] = []
        if let text = read(valuesFile, required: false) {
            var reader = ConfigurationReader(file: label(valuesFile))
            if let node = JSONText.parse(text, reader: &reader) {
                let (definitions, locations) = ValueDefinitions.read(node, reader: &reader)
                declared = definitions.entries.map { ($0, reader.file, locations[$0.name]) }
            }
            errors += reader.errors
        }
        let environmentFile = "\(environmentsDirectory)/\(environment.rawValue).json"
        if let text = read(environmentFile, required: false) {
            var reader = ConfigurationReader(file: label(environmentFile))
            if let node = JSONText.parse(text, reader: &reader), let pairs = reader.mapping(node, "an environment file")
            {
                reader.rejectUnknownKeys(pairs, known: ["values"])
                if let valuesNode = pairs["values"] {
                    let (overrides, locations) = ValueDefinitions.read(valuesNode, reader: &reader)
                    for entry in overrides.entries {
                        let item = (entry, reader.file, locations[entry.name])
                        if let index = declared.firstIndex(where: { $0.entry.name == entry.name }) {
                            declared[index] = item
                        } else {
                            declared.append(item)
                        }
                    }
                }
            }
            errors += reader.errors
        }

        var secretsInFile: [String: String] = [:]
        if let text = read(secretsFile, required: false) {
            var reader = ConfigurationReader(file: label(secretsFile))
            secretsInFile = SecretStore.readFile(text, reader: &reader)
            errors += reader.errors
        }
        let store = SecretStore(variables: variables, file: secretsInFile)
        // The secret `name`, or nil with an error at `location` saying where to set it.
        func secret(_ name: String, for what: String, file: String, location: SourceLocation?) -> Secret? {
            if let secret = store.secret(named: name) { return secret }
            errors.append(
                ConfigurationError(
                    file: file, location: location,
                    message:
                        "\(what)secret '\(name)' is not set (set \(SecretStore.variableName(for: name)) or add it to \(secretsFile))"
                ))
            return nil
        }

        var values = AppValues()
        for item in declared {
            switch item.entry.value {
            case .plain(let value):
                values[item.entry.name] = .plain(value)
            case .secret(let name):
                if let secret = secret(name, for: "", file: item.file, location: item.location) {
                    values[item.entry.name] = .secret(secret)
                }
            }
        }

        var endpointSecrets: [String: Secret] = [:]
        for endpoint in definition?.endpoints ?? [] {
            guard let name = endpoint.validation.secretName else { continue }
            endpointSecrets[name] = secret(
                name, for: "endpoint \(endpoint.route): ", file: endpoint.file, location: endpoint.location)
        }

        var webhookSecrets: [String: Secret] = [:]
        for trigger in definition?.triggers ?? [] {
            if let name = trigger.webhook?.secretName {
                webhookSecrets[name] = secret(
                    name, for: "trigger \(trigger.name)'s webhook: ", file: label(triggersFile), location: nil)
            }
            if let name = trigger.suspensionWebhook?.secretName, webhookSecrets[name] == nil {
                webhookSecrets[name] = secret(
                    name, for: "trigger \(trigger.name)'s onSuspend webhook: ", file: label(triggersFile),
                    location: nil)
            }
        }

        var storeLocation: PostgreSQLLocation?
        switch definition?.store {
        case .postgresql(let url): storeLocation = try? PostgreSQLLocation(url: url)
        case .secret(let name):
            if let url = secret(name, for: "'store': ", file: label(triggersFile), location: nil) {
                do {
                    storeLocation = try PostgreSQLLocation(url: url.exposedValue)
                } catch {
                    errors.append(
                        ConfigurationError(
                            file: label(triggersFile), location: nil,
                            message: "'store': secret '\(name)' holds no PostgreSQL URL: \(error.message)"))
                }
            }
        case nil: break
        }

        guard errors.isEmpty, let definition else { throw ConfigurationErrors(errors) }
        return AppConfiguration(
            definition: definition, environment: environment, values: values, endpointSecrets: endpointSecrets,
            webhookSecrets: webhookSecrets, storeLocation: storeLocation)
    }
}
