/// Where secret values come from: an environment variable `SWITCHYARD_SECRET_<NAME>` (the name upper-cased,
/// every character other than A–Z and 0–9 turned into `_`), else `secrets.json` beside the configuration
/// (a JSON object of name → string, kept out of version control).
package struct SecretStore: Sendable {
    let variables: [String: String]
    let file: [String: String]

    package init(variables: [String: String], file: [String: String] = [:]) {
        self.variables = variables
        self.file = file
    }

    package static func variableName(for secret: String) -> String {
        let scalars = secret.uppercased().unicodeScalars.map { scalar -> Character in
            (("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)) ? Character(scalar) : "_"
        }
        return "SWITCHYARD_SECRET_" + String(scalars)
    }

    package func secret(named name: String) -> Secret? {
        if let value = variables[Self.variableName(for: name)] { return Secret(name: name, value: value) }
        return file[name].map { Secret(name: name, value: $0) }
    }
}

extension SecretStore {
    /// Reads `secrets.json` (name → string). Its errors never quote the file's contents.
    static func readFile(_ text: String, reader: inout ConfigurationReader) -> [String: String] {
        guard let node = JSONText.parse(text, reader: &reader),
            let pairs = reader.mapping(node, "the secrets file")
        else { return [:] }
        var secrets: [String: String] = [:]
        for pair in pairs {
            guard case .scalar(let value, isPlain: false) = pair.value.value else {
                reader.error("secret '\(pair.key)' must be a string", at: pair.value)
                continue
            }
            secrets[pair.key] = value
        }
        return secrets
    }
}
