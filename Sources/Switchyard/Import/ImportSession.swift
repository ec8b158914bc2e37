import BSON
import Foundation

/// One import: the files read so far, the problems found in them and what was left out.
struct ImportSession {
    let root: String
    var errors: [ConfigurationError] = []
    var leftOut: [ImportNote] = []
    /// Who uses each function, by name, with the kind that use asks for.
    var uses: [String: [(kind: FunctionKind, by: String)]] = [:]

    init(root: String) {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
    }

    func path(_ relative: String) -> String { root == "." || root.isEmpty ? relative : "\(root)/\(relative)" }

    func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: path(relative)) }

    func entries(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path(directory))) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    func isDirectory(_ relative: String) -> Bool {
        var flag: ObjCBool = false
        return FileManager.default.fileExists(atPath: path(relative), isDirectory: &flag) && flag.boolValue
    }

    func jsonFiles(in directory: String) -> [String] {
        entries(in: directory).filter { $0.hasSuffix(".json") }.map { "\(directory)/\($0)" }
    }

    /// Every file below `directory`, relative to the export's root, sorted; hidden files are skipped.
    func files(under directory: String) -> [String] {
        let subpaths = (try? FileManager.default.subpathsOfDirectory(atPath: path(directory))) ?? []
        return subpaths.filter { subpath in
            !subpath.split(separator: "/").contains { $0.hasPrefix(".") } && !isDirectory("\(directory)/\(subpath)")
        }.sorted().map { "\(directory)/\($0)" }
    }

    /// A text file's contents; a file that is not UTF-8 is an error.
    mutating func text(_ relative: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path(relative)) else { return nil }
        guard let text = String(data: data, encoding: .utf8) else {
            errors.append(ConfigurationError(file: path(relative), location: nil, message: "is not valid UTF-8"))
            return nil
        }
        return text
    }

    /// Parses one JSON file, handing its root node and a reader to `body`; collects the reader's errors.
    mutating func withJSON<T>(_ relative: String, _ body: (YAMLNode, inout ConfigurationReader) -> T?) -> T? {
        guard let text = text(relative) else { return nil }
        var reader = ConfigurationReader(file: path(relative))
        defer { errors += reader.errors }
        guard let node = JSONText.parse(text, reader: &reader) else { return nil }
        return body(node, &reader)
    }

    mutating func use(_ function: String, kind: FunctionKind, by: String) {
        uses[function, default: []].append((kind, by))
    }

    mutating func run() -> AppServicesImport {
        var definition = AppDefinition()
        if let file = ["root_config.json", "realm_config.json", "config.json"].first(where: exists),
            let root = withJSON(file, Self.rootSettings)
        {
            definition.appId = root.appId
            definition.allowedRequestOrigins = root.allowedRequestOrigins
            if let environment = root.environment, !environment.isEmpty, environment != "development" {
                leftOut.append(
                    ImportNote(
                        file,
                        "'environment: \(environment)' left out: Switchyard takes the environment from --environment or \(AppEnvironment.variableName) (development by default)"
                    ))
            }
        }
        var firstByName: [String: (file: String, location: SourceLocation)] = [:]
        for file in jsonFiles(in: "triggers") {
            guard let outcome = withJSON(file, { TriggerImport.read($0, reader: &$1) }) else { continue }
            switch outcome {
            case .leftOut(let message):
                leftOut.append(ImportNote(file, message))
            case .imported(let trigger, let location, let notes):
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
                let kind = FunctionKind(trigger: trigger.kind)
                use(trigger.function, kind: kind, by: "the `\(trigger.name)` \(kind.rawValue) trigger's function")
                if let handler = trigger.onFailure {
                    use(
                        handler, kind: .callable,
                        by:
                            "the `\(trigger.name)` trigger's error handler, given {trigger, eventId, attempts, error, event} once an event's last attempt failed"
                    )
                }
                leftOut += notes.map { ImportNote(file, $0) }
            }
        }
        let (settings, sources) = readFunctions()
        definition.functions = settings
        readAuth(into: &definition.auth)
        let values = readValues()
        let environments = readEnvironments()
        let kept = keepVerbatim()
        definition.endpoints = readEndpoints()
        definition.logForwarders = readLogForwarders()
        noteWhatIsLeftOut()

        var names = Set(settings.keys).union(sources.keys).union(uses.keys)
        names.formUnion(definition.auth.emailPassword?.functions ?? [])
        var functions: [ImportedFunction] = []
        var renamed: [String: String] = [:]
        for name in names.sorted() {
            let used = uses[name] ?? []
            var function = ImportedFunction(name: name, kind: used.first?.kind ?? .callable, usedBy: used.map(\.by))
            if let source = sources[name] {
                function.javaScript = source.text
                function.parameters = JavaScriptExports.parameters(of: source.text) ?? []
            }
            if let other = used.first(where: { $0.kind != function.kind }) {
                leftOut.append(
                    ImportNote(
                        sources[name]?.path ?? "functions/config.json",
                        "'\(name)' is \(used[0].by) and \(other.by); a Swift function has one kind, so its stub is \(function.kind.phrase): port the other use as a function of its own and point its trigger at it"
                    ))
            }
            let identifier = FunctionStub.identifier(for: name)
            if let taken = functions.first(where: { $0.name == identifier }) {
                errors.append(
                    ConfigurationError(
                        file: path(sources[name]?.path ?? "functions/config.json"), location: nil,
                        message:
                            "function '\(name)' would be the Swift function '\(identifier)', which '\(renamed.first { $0.value == identifier }?.key ?? taken.name)' already is; rename one of them"
                    ))
                continue
            }
            if identifier != name {
                renamed[name] = identifier
                function.name = identifier
            }
            functions.append(function)
        }
        if !renamed.isEmpty { rename(renamed, in: &definition) }
        return AppServicesImport(
            definition: definition, values: values, environments: environments, functions: functions,
            keptFiles: kept, leftOut: leftOut, renamedFunctions: renamed)
    }

    /// Points every use of a function at its Swift name.
    private func rename(_ renamed: [String: String], in definition: inout AppDefinition) {
        for index in definition.triggers.indices {
            if let name = renamed[definition.triggers[index].function] { definition.triggers[index].function = name }
        }
        for index in definition.endpoints.indices {
            if let name = renamed[definition.endpoints[index].function] { definition.endpoints[index].function = name }
        }
        for index in definition.logForwarders.indices {
            if case .function(let name) = definition.logForwarders[index].action, let swiftName = renamed[name] {
                definition.logForwarders[index].action = .function(swiftName)
            }
        }
        definition.functions = Dictionary(
            definition.functions.map { (renamed[$0.key] ?? $0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        if var settings = definition.auth.emailPassword {
            settings.confirmationFunction = settings.confirmationFunction.map { renamed[$0] ?? $0 }
            settings.resetFunction = settings.resetFunction.map { renamed[$0] ?? $0 }
            definition.auth.emailPassword = settings
        }
    }

    /// The root configuration's `app_id`, `allowed_request_origins` and `environment`.
    static func rootSettings(_ node: YAMLNode, reader: inout ConfigurationReader) -> (
        appId: String?, allowedRequestOrigins: [String], environment: String?
    )? {
        guard let pairs = reader.mapping(node, "the app configuration") else { return nil }
        let appId = pairs["app_id"].flatMap { $0.isNull ? nil : reader.string($0, "'app_id'") }
        var origins: [String] = []
        if let list = pairs["allowed_request_origins"], !list.isNull,
            let items = reader.sequence(list, "'allowed_request_origins'")
        {
            origins = items.compactMap { reader.string($0, "an allowed request origin") }
        }
        let environment = pairs["environment"].flatMap { $0.isNull ? nil : reader.string($0, "'environment'") }
        return (appId, origins, environment)
    }

    static func functionSettings(_ node: YAMLNode, reader: inout ConfigurationReader) -> [String: FunctionSettings]? {
        guard let items = reader.sequence(node, "functions/config.json") else { return nil }
        var functions: [String: FunctionSettings] = [:]
        for item in items {
            if let (name, settings) = functionSetting(item, reader: &reader) { functions[name] = settings }
        }
        return functions
    }

    /// One function's `{"name", "private", "run_as_system", "can_evaluate"}`, from `functions/config.json`
    /// or, in the older layout, `functions/<name>/config.json`.
    static func functionSetting(_ item: YAMLNode, reader: inout ConfigurationReader) -> (String, FunctionSettings)? {
        guard let pairs = reader.mapping(item, "a function"),
            let nameNode = pairs["name"] ?? missing("name", item, &reader),
            let name = reader.string(nameNode, "'name'")
        else { return nil }
        var settings = FunctionSettings()
        if let v = pairs["private"], let b = reader.bool(v, "'private'") { settings.isPrivate = b }
        if let v = pairs["run_as_system"], let b = reader.bool(v, "'run_as_system'") { settings.runAsSystem = b }
        if let v = pairs["can_evaluate"], !v.isNull, let d = reader.document(v, rules: .json) {
            settings.canEvaluate = d
        }
        return (name, settings)
    }

    /// `auth/custom_user_data.json`: where custom user data lives, and the function it names to run when a
    /// user is created.
    static func customUserData(_ node: YAMLNode, reader: inout ConfigurationReader) -> (
        AuthSettings.CustomUserData?, creationFunction: String?
    )? {
        guard let pairs = reader.mapping(node, "custom user data") else { return nil }
        let creationFunction = pairs["on_user_creation_function_name"].flatMap {
            $0.isNull ? nil : reader.string($0, "'on_user_creation_function_name'")
        }.flatMap { $0.isEmpty ? nil : $0 }
        let enabled = pairs["enabled"].flatMap { reader.bool($0, "'enabled'") } ?? false
        var fields: [String] = []
        for key in ["database_name", "collection_name", "user_id_field"] {
            if let v = pairs[key], let text = reader.string(v, "'\(key)'"), !text.isEmpty {
                fields.append(text)
            } else if enabled {
                reader.error("enabled custom user data needs '\(key)'", at: pairs[key] ?? node)
            }
        }
        guard fields.count == 3 else { return (nil, creationFunction) }
        return (
            AuthSettings.CustomUserData(
                database: fields[0], collection: fields[1], userIdField: fields[2], enabled: enabled),
            creationFunction
        )
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
