/// One enabled authentication provider of an export: its type, the email/password provider's settings, the
/// functions it runs and what of its settings Switchyard leaves out.
struct ProviderEntry {
    var type: AuthenticationProvider
    var emailPassword: EmailPasswordSettings?
    /// Functions the provider calls, with the role each plays, for the stub's comment.
    var functions: [(name: String, role: String)] = []
    var leftOut: [String] = []

    /// `local-userpass` settings Switchyard keeps, with their names in `auth.emailPassword`.
    static let emailPasswordKeys = [
        "autoConfirm", "confirmEmailUrl", "emailConfirmationUrl", "runConfirmationFunction",
        "confirmationFunctionName", "confirmationFunctionId", "resetPasswordUrl", "runResetFunction",
        "resetFunctionName", "resetFunctionId",
    ]

    /// The providers in `providers.json` (an object keyed by name, or a list in old exports) or in one
    /// `auth_providers/<name>.json`; disabled ones are skipped.
    static func read(_ node: YAMLNode, reader: inout ConfigurationReader) -> [ProviderEntry] {
        let entries: [YAMLNode]
        switch node.value {
        case .mapping(let pairs) where pairs.contains(where: { $0.key.scalar == "type" }): entries = [node]
        case .mapping(let pairs): entries = pairs.map(\.value)
        case .sequence(let items): entries = items
        case .scalar: entries = []
        }
        return entries.compactMap { entry(for: $0, reader: &reader) }
    }

    private static func entry(for node: YAMLNode, reader: inout ConfigurationReader) -> ProviderEntry? {
        guard let pairs = reader.mapping(node, "a provider"),
            let typeNode = pairs["type"] ?? ImportSession.missing("type", node, &reader),
            let type = reader.string(typeNode, "'type'")
        else { return nil }
        if let v = pairs["disabled"], reader.bool(v, "'disabled'") == true { return nil }
        guard let provider = AuthenticationProvider(rawValue: type) else {
            let names = AuthenticationProvider.allCases.map(\.rawValue)
            reader.error(
                "unsupported authentication provider '\(type)'\(ClosestMatch.hint(for: type, among: names))",
                at: typeNode)
            return nil
        }
        var entry = ProviderEntry(type: provider)
        let config = pairs["config"].flatMap { $0.isNull ? nil : reader.mapping($0, "'config'") } ?? []
        switch provider {
        case .anonymous:
            break
        case .emailPassword:
            var settings = EmailPasswordSettings()
            func flag(_ key: String) -> Bool { config[key].flatMap { reader.bool($0, "'config.\(key)'") } ?? false }
            func text(_ key: String) -> String? {
                config[key].flatMap { $0.isNull ? nil : reader.string($0, "'config.\(key)'") }
                    .flatMap { $0.isEmpty ? nil : $0 }
            }
            settings.autoConfirm = flag("autoConfirm")
            settings.confirmEmailURL = text("confirmEmailUrl") ?? text("emailConfirmationUrl")
            settings.runConfirmationFunction = flag("runConfirmationFunction")
            settings.confirmationFunction = text("confirmationFunctionName")
            settings.resetPasswordURL = text("resetPasswordUrl")
            settings.runResetFunction = flag("runResetFunction")
            settings.resetFunction = text("resetFunctionName")
            for (run, function) in [
                ("runConfirmationFunction", settings.confirmationFunction),
                ("runResetFunction", settings.resetFunction),
            ] where function == nil && flag(run) {
                reader.error(
                    "'config.\(run)' is true but no function is named to run", at: config[run] ?? node)
            }
            if let name = settings.confirmationFunction {
                entry.functions.append((name, "the email/password provider's confirmation function"))
            }
            if let name = settings.resetFunction {
                entry.functions.append((name, "the email/password provider's password reset function"))
            }
            entry.emailPassword = settings
            let other = config.map(\.key).filter { !emailPasswordKeys.contains($0) }
            if !other.isEmpty {
                entry.leftOut.append(
                    "local-userpass settings \(other.map { "'\($0)'" }.joined(separator: ", ")) left out: Switchyard sends no email"
                )
            }
        case .customFunction:
            if let name = config["authFunctionName"].flatMap({ reader.string($0, "'config.authFunctionName'") }) {
                entry.functions.append((name, "the custom function provider's login function"))
            }
            entry.leftOut.append(notServed(type))
        case .apiKey:
            break
        case .customJWT, .google, .apple, .facebook:
            entry.leftOut.append(notServed(type))
        }
        return entry
    }

    private static func notServed(_ type: String) -> String {
        "provider '\(type)' is enabled in auth.providers but its logins and settings are left out: Switchyard's client API logs users in with anon-user, local-userpass and api-key"
    }
}
