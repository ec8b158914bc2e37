import DocumentStore

extension AppDefinition {
    static let storeKeys = ["secret"]

    /// `store: postgresql://USER@HOST:PORT/DATABASE` or `store: {secret: NAME}`; `store: sqlite` says the default.
    static func readStore(_ node: YAMLNode, reader: inout ConfigurationReader) -> StoreDeclaration? {
        if case .mapping = node.value {
            guard let fields = reader.mapping(node, "'store'") else { return nil }
            reader.rejectUnknownKeys(fields, known: storeKeys)
            guard let name = fields["secret"], !name.isNull else {
                // Other keys are reported as unknown, with the one it takes suggested.
                if fields.isEmpty {
                    reader.error("'store' as a mapping names the secret holding its URL: {secret: NAME}", at: node)
                }
                return nil
            }
            guard let text = reader.string(name, "'store.secret'") else { return nil }
            return .secret(name: text)
        }
        guard let text = reader.string(node, "'store'") else { return nil }
        if text == "sqlite" { return nil }
        guard let location = try? PostgreSQLLocation(url: text) else {
            reader.error(
                "'store' is sqlite, a postgresql:// URL or {secret: NAME}, not '\(PostgreSQLLocation.redacting(text))'",
                at: node)
            return nil
        }
        guard !location.holdsPassword else {
            reader.error(
                "'store' holds a password (\(location)): keep the URL in a secret and name it (store: {secret: NAME}), "
                    + "or leave the password to PGPASSWORD or ~/.pgpass", at: node)
            return nil
        }
        return .postgresql(url: text)
    }
}
