extension HTTPEndpoint {
    /// App Services' keys, and Switchyard's `authentication` (`application`, `system` or `script`, with
    /// `authentication_function` naming the script's function).
    static let keys = [
        "route", "http_method", "function_name", "validation_method", "secret_name", "respond_result",
        "fetch_custom_user_data", "create_user_on_auth", "disabled", "return_type", "authentication",
        "authentication_function",
    ]
    static let validationMethods = ["NO_VALIDATION", "SECRET_AS_QUERY_PARAM", "VERIFY_PAYLOAD"]
    static let authentications = ["application", "system", "script"]

    /// A sequence of endpoints (the whole `config.json`, or `endpoints:`), every problem reported into `reader`.
    /// With `registeredFunctions`, each function (and script function) must be one of them.
    static func readSection(
        _ node: YAMLNode, _ what: String, reader: inout ConfigurationReader, registeredFunctions: Set<String>?
    ) -> [HTTPEndpoint] {
        guard let items = reader.sequence(node, what) else { return [] }
        var endpoints: [HTTPEndpoint] = []
        var first: [String: SourceLocation] = [:]
        for item in items {
            guard let endpoint = read(item, reader: &reader, registeredFunctions: registeredFunctions) else { continue }
            for method in endpoint.method == .any ? Method.allCases : [endpoint.method, .any] {
                if let earlier = first["\(method.rawValue) \(endpoint.route)"] {
                    reader.error(
                        "a second endpoint for \(endpoint.method.rawValue) \(endpoint.route)", at: item,
                        notes: [reader.note("the first is here", at: earlier)])
                    break
                }
            }
            first["\(endpoint.method.rawValue) \(endpoint.route)"] = item.location
            endpoints.append(endpoint)
        }
        return endpoints
    }

    private static func read(_ node: YAMLNode, reader: inout ConfigurationReader, registeredFunctions: Set<String>?)
        -> HTTPEndpoint?
    {
        guard let pairs = reader.mapping(node, "an HTTPS endpoint") else { return nil }
        reader.rejectUnknownKeys(pairs, known: keys)
        func required(_ key: String) -> YAMLNode? {
            if let value = pairs[key] { return value }
            reader.error("an HTTPS endpoint needs '\(key)'", at: node)
            return nil
        }
        func flag(_ key: String, default value: Bool) -> Bool {
            pairs[key].flatMap { $0.isNull ? nil : reader.bool($0, "'\(key)'") } ?? value
        }
        var route: String?
        if let value = required("route"), let text = reader.string(value, "'route'") {
            if !text.hasPrefix("/") || text.contains("?") || text.contains("#") || text.contains("//") {
                reader.error("'route' must start with '/' and hold no '?', '#' or '//' (as '/books/latest')", at: value)
            } else {
                route = text.count > 1 && text.hasSuffix("/") ? String(text.dropLast()) : text
            }
        }
        var method: Method?
        if let value = required("http_method"), let text = reader.string(value, "'http_method'") {
            method = Method(rawValue: text.uppercased())
            if method == nil {
                let names = Method.allCases.map(\.rawValue)
                reader.error(
                    "unknown 'http_method' '\(text)'\(ClosestMatch.hint(for: text.uppercased(), among: names)) (one of \(names.joined(separator: ", ")))",
                    at: value)
            }
        }
        var function: String?
        if let value = required("function_name"), let name = reader.string(value, "'function_name'") {
            if let registeredFunctions {
                AppDefinition.checkFunction(name, at: value.location, registered: registeredFunctions, reader: &reader)
            }
            function = name
        }
        var validation = Validation.none
        let secretName = pairs["secret_name"].flatMap { $0.isNull ? nil : reader.string($0, "'secret_name'") }
        if let value = pairs["validation_method"], !value.isNull, let text = reader.string(value, "'validation_method'")
        {
            switch text {
            case "NO_VALIDATION": break
            case "SECRET_AS_QUERY_PARAM", "VERIFY_PAYLOAD":
                if let secretName, !secretName.isEmpty {
                    validation =
                        text == "VERIFY_PAYLOAD"
                        ? .verifyPayload(secretName: secretName) : .secretAsQueryParameter(secretName: secretName)
                } else {
                    reader.error("'validation_method' \(text) needs 'secret_name' (a secret's name)", at: value)
                }
            default:
                reader.error(
                    "unknown 'validation_method' '\(text)'\(ClosestMatch.hint(for: text, among: validationMethods)) (one of \(validationMethods.joined(separator: ", ")))",
                    at: value)
            }
        }
        var returnsExtendedJSON = false
        if let value = pairs["return_type"], !value.isNull, let text = reader.string(value, "'return_type'") {
            switch text {
            case "JSON": break
            case "EJSON": returnsExtendedJSON = true
            default:
                reader.error(
                    "unknown 'return_type' '\(text)'\(ClosestMatch.hint(for: text, among: ["JSON", "EJSON"])) (JSON or EJSON)",
                    at: value)
            }
        }
        var authentication: Authentication?
        if let value = pairs["authentication"], !value.isNull, let text = reader.string(value, "'authentication'") {
            switch text {
            case "application": authentication = .application
            case "system": authentication = .system
            case "script":
                if let scriptNode = pairs["authentication_function"],
                    let name = reader.string(scriptNode, "'authentication_function'")
                {
                    if let registeredFunctions {
                        AppDefinition.checkFunction(
                            name, at: scriptNode.location, registered: registeredFunctions, reader: &reader)
                    }
                    authentication = .script(function: name)
                } else {
                    reader.error(
                        "'authentication: script' needs 'authentication_function' (a function returning the user id)",
                        at: value)
                }
            default:
                reader.error(
                    "unknown 'authentication' '\(text)'\(ClosestMatch.hint(for: text, among: authentications)) (one of \(authentications.joined(separator: ", ")))",
                    at: value)
            }
        }
        guard let route, let method, let function else { return nil }
        return HTTPEndpoint(
            route: route, method: method, function: function, validation: validation,
            respondResult: flag("respond_result", default: false), returnsExtendedJSON: returnsExtendedJSON,
            fetchCustomUserData: flag("fetch_custom_user_data", default: false),
            createUserOnAuth: flag("create_user_on_auth", default: false), disabled: flag("disabled", default: false),
            authentication: authentication, file: reader.file, location: node.location)
    }
}

extension HTTPEndpoint {
    /// Where an App Services export keeps its endpoints: the older layout's folder, then the current one's.
    static let exportFiles = ["http_endpoints/config.json", "https_endpoints/config.json"]
}
