/// The payload of a notification on `PostgreSQLCommitListener.channel`: the instance that committed, then one line
/// per collection the transaction wrote (`db.collection`), or the line `*` for every collection when the names do
/// not fit in a payload (PostgreSQL refuses one of 8,000 bytes or more) or one holds a line break.
///
/// ```
/// 3F2504E0-4F89-11D3-9A0C-0305E82C3301
/// local.switchyard_sessions
/// ```
enum PostgreSQLCommitNotice {
    /// Payloads this long or longer become "every collection".
    static let maximumBytes = 8000
    private static let everyCollection = "*"

    static func payload(instance: String, wrote namespaces: some Sequence<Namespace>) -> String {
        var payload = instance
        for namespace in namespaces {
            guard !namespace.collection.contains("\n") else { return instance + "\n" + everyCollection }
            payload += "\n" + namespace.description
        }
        guard payload.utf8.count < maximumBytes else { return instance + "\n" + everyCollection }
        return payload
    }

    /// What a payload says its transaction wrote; nil when `instance` committed it (a listener's own instance,
    /// whose notices it drops before reading the names).
    static func wrote(_ payload: String, unlessBy instance: String) -> CommittedWrites? {
        let lines = payload.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines[0] != instance else { return nil }
        var namespaces = Set<Namespace>()
        for line in lines.dropFirst() {
            // Database names hold no dot (`Namespace.validate(database:)`): the first one ends it.
            guard line != everyCollection, let dot = line.firstIndex(of: ".") else { return .every }
            namespaces.insert(
                Namespace(database: String(line[..<dot]), collection: String(line[line.index(after: dot)...])))
        }
        return .collections(namespaces)
    }
}
