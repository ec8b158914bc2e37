import Foundation

/// The parts of an export besides its root configuration and triggers.
extension ImportSession {
    /// Function settings and JavaScript sources by name, from `functions/config.json` and `functions/*.js`,
    /// or from the older `functions/<name>/{config.json,source.js}`.
    mutating func readFunctions() -> (
        settings: [String: FunctionSettings], sources: [String: (path: String, text: String)]
    ) {
        var settings = withJSON("functions/config.json", Self.functionSettings) ?? [:]
        var sources: [String: (path: String, text: String)] = [:]
        for entry in entries(in: "functions") {
            let relative = "functions/\(entry)"
            if entry.hasSuffix(".js"), !isDirectory(relative) {
                if let text = text(relative) { sources[String(entry.dropLast(3))] = (relative, text) }
            } else if isDirectory(relative), exists("\(relative)/source.js") || exists("\(relative)/config.json") {
                if let (name, setting) = withJSON("\(relative)/config.json", Self.functionSetting) {
                    settings[name] = setting
                }
                if let text = text("\(relative)/source.js") { sources[entry] = ("\(relative)/source.js", text) }
            } else if entry == "node_modules" || entry.hasPrefix("node_modules.") || entry == "package.json" {
                leftOut.append(
                    ImportNote(
                        relative,
                        "npm dependencies left out: Swift functions cannot load them; use a Swift package or Foundation instead"
                    ))
            }
        }
        return (settings, sources)
    }

    /// `auth/providers.json` (or the older `auth_providers/*.json`) and `auth/custom_user_data.json`.
    mutating func readAuth(into auth: inout AuthSettings) {
        let providerFiles =
            exists("auth/providers.json") ? ["auth/providers.json"] : jsonFiles(in: "auth_providers")
        for file in providerFiles {
            let found = withJSON(file) { node, reader -> [ProviderEntry]? in ProviderEntry.read(node, reader: &reader) }
            for provider in found ?? [] {
                auth.providers.insert(provider.type)
                for function in provider.functions { use(function.name, kind: .callable, by: function.role) }
                if provider.type == .emailPassword { auth.emailPassword = provider.emailPassword }
                leftOut += provider.leftOut.map { ImportNote(file, $0) }
            }
        }
        let file = "auth/custom_user_data.json"
        if let (data, creationFunction) = withJSON(file, Self.customUserData) {
            auth.customUserData = data
            if let creationFunction {
                leftOut.append(
                    ImportNote(
                        file,
                        "'on_user_creation_function_name: \(creationFunction)' left out: Switchyard runs no function on user creation here; an authentication trigger on CREATE does the same"
                    ))
            }
        }
    }

    mutating func readValues() -> ValueDefinitions {
        var values = ValueDefinitions()
        for file in jsonFiles(in: "values") {
            if let entry = withJSON(file, Self.value) { values.entries.append(entry) }
        }
        return values
    }

    /// `environments/<name>.json` for App Services' four environments. `no-environment.json` holds the values
    /// of an app with no environment set; Switchyard always runs in one, so they are left out by name.
    mutating func readEnvironments() -> [AppEnvironment: ValueDefinitions] {
        var environments: [AppEnvironment: ValueDefinitions] = [:]
        for file in jsonFiles(in: "environments") {
            let name = String(file.dropFirst("environments/".count).dropLast(".json".count))
            if name == "no-environment" {
                let unset = withJSON(file, Self.environmentValues)?.entries.map(\.name) ?? []
                if !unset.isEmpty {
                    leftOut.append(
                        ImportNote(
                            file,
                            "values \(unset.map { "'\($0)'" }.joined(separator: ", ")) left out: they apply only while no environment is set, and Switchyard always runs in one (--environment, \(AppEnvironment.variableName), development by default)"
                        ))
                }
                continue
            }
            guard let environment = AppEnvironment(rawValue: name) else {
                let names = AppEnvironment.allCases.map(\.rawValue) + ["no-environment"]
                errors.append(
                    ConfigurationError(
                        file: path(file), location: nil,
                        message: "unknown environment '\(name)'\(ClosestMatch.hint(for: name, among: names))"))
                continue
            }
            environments[environment] = withJSON(file, Self.environmentValues)
        }
        return environments
    }

    /// `data_sources/` and the rest of `http_endpoints/`, by path, to be written unchanged in App Services' own
    /// layout, which Switchyard reads from the app's directory. Notes data sources other than a linked Atlas
    /// cluster and the Data API.
    mutating func keepVerbatim() -> [String: String] {
        var kept: [String: String] = [:]
        // The endpoints themselves become `endpoints:` in triggers.yaml (`readEndpoints`); what else the endpoint
        // folders hold is kept as it is.
        for file in files(under: "data_sources") + files(under: "http_endpoints") + files(under: "https_endpoints")
        where !HTTPEndpoint.exportFiles.contains(file) {
            if let text = text(file) { kept[file] = text }
        }
        for source in entries(in: "data_sources") where exists("data_sources/\(source)/config.json") {
            let file = "data_sources/\(source)/config.json"
            let type = withJSON(file) { node, reader -> String? in
                reader.mapping(node, "a data source")?["type"].flatMap { reader.string($0, "'type'") }
            }
            if let type, type != "mongodb-atlas" {
                leftOut.append(
                    ImportNote(
                        file,
                        "data source '\(source)' (\(type)) left out: Switchyard's one database stands in for linked Atlas clusters only"
                    ))
            }
        }
        for file in ["http_endpoints/data_api_config.json", "https_endpoints/data_api_config.json"]
        where exists(file) && withJSON(file, Self.isDisabled) == false {
            leftOut.append(
                ImportNote(
                    file,
                    "the Data API left out: Switchyard serves the Realm SDKs' client API, not the Data API"))
        }
        return kept
    }

    /// Device Sync, GraphQL, hosting, third-party services, older rules and anything else
    /// an export can hold that Switchyard does not run: one note each.
    mutating func noteWhatIsLeftOut() {
        if exists("sync/config.json"),
            let sync = withJSON("sync/config.json", Self.syncSummary), let type = sync.type, sync.state != "disabled"
        {
            leftOut.append(
                ImportNote(
                    "sync/config.json",
                    "Device Sync (\(type) sync) left out: Switchyard serves no sync protocol, so synced realms cannot connect; the SDKs' functions, remote MongoDB and auth calls work"
                ))
        }
        if isDirectory("graphql") {
            leftOut.append(ImportNote("graphql/", "GraphQL left out: Switchyard serves no GraphQL API"))
            for file in jsonFiles(in: "graphql/custom_resolvers") {
                leftOut.append(ImportNote(file, "custom resolver left out: Switchyard serves no GraphQL API"))
            }
        }
        if !files(under: "hosting").isEmpty {
            leftOut.append(
                ImportNote(
                    "hosting/",
                    "static hosting left out: Switchyard hosts no files; serve hosting/files from any web server"))
        }
        for service in entries(in: "services") where isDirectory("services/\(service)") {
            let folder = "services/\(service)"
            let type =
                exists("\(folder)/config.json")
                ? withJSON("\(folder)/config.json") { node, reader -> String? in
                    reader.mapping(node, "a service")?["type"].flatMap { reader.string($0, "'type'") }
                } : nil
            if type == "mongodb-atlas" {
                if !files(under: "\(folder)/rules").isEmpty {
                    leftOut.append(
                        ImportNote(
                            "\(folder)/rules/",
                            "rules in the older layout left out: Switchyard reads them as data_sources/<service>/<database>/<collection>/rules.json; export the app again with 'appservices pull' to get that layout"
                        ))
                }
            } else {
                leftOut.append(
                    ImportNote(
                        "\(folder)/",
                        "third-party service '\(service)'\(type.map { " (\($0))" } ?? "") left out\(isDirectory("\(folder)/incoming_webhooks") ? ", with its incoming webhooks" : ""): Switchyard has no third-party services; call the API from a function with context.http"
                    ))
            }
        }
        let known: Set<String> = [
            "root_config.json", "realm_config.json", "config.json", "auth", "auth_providers", "data_sources",
            "environments", "functions", "graphql", "hosting", "http_endpoints", "https_endpoints", "log_forwarders",
            "services",
            "sync", "triggers", "values",
        ]
        for entry in entries(in: ".") where !known.contains(entry) {
            leftOut.append(
                ImportNote(
                    isDirectory(entry) ? "\(entry)/" : entry,
                    "left out: not part of an App Services export's layout"))
        }
    }

    /// `http_endpoints/config.json` (or `https_endpoints/config.json`, the current layout's name): the custom
    /// HTTPS endpoints, each function registered as a callable an endpoint runs.
    mutating func readEndpoints() -> [HTTPEndpoint] {
        var endpoints: [HTTPEndpoint] = []
        for file in HTTPEndpoint.exportFiles where exists(file) {
            let read =
                withJSON(file) { node, reader in
                    HTTPEndpoint.readSection(node, file, reader: &reader, registeredFunctions: nil)
                } ?? []
            for endpoint in read where endpoint.createUserOnAuth {
                leftOut.append(
                    ImportNote(
                        file,
                        "`\(endpoint.route)`'s 'create_user_on_auth' left out: it makes users for custom JWT logins, a provider Switchyard does not serve"
                    ))
            }
            endpoints += read
        }
        for endpoint in endpoints {
            use(endpoint.function, kind: .callable, by: "the `\(endpoint.route)` HTTPS endpoint's function")
        }
        return endpoints
    }

    /// A configuration's `disabled` flag, false when it has none.
    static func isDisabled(_ node: YAMLNode, reader: inout ConfigurationReader) -> Bool? {
        guard let pairs = reader.mapping(node, "a configuration") else { return nil }
        return pairs["disabled"].flatMap { reader.bool($0, "'disabled'") } ?? false
    }

    /// `sync/config.json`'s `type` (partition or flexible) and `state`.
    static func syncSummary(_ node: YAMLNode, reader: inout ConfigurationReader) -> (type: String?, state: String?)? {
        guard let pairs = reader.mapping(node, "the sync configuration") else { return nil }
        return (
            pairs["type"].flatMap { $0.isNull ? nil : reader.string($0, "'type'") },
            pairs["state"].flatMap { $0.isNull ? nil : reader.string($0, "'state'") }
        )
    }
}
