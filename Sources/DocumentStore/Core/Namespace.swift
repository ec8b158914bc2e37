/// A collection's full name: database and collection.
public struct Namespace: Hashable, Sendable, CustomStringConvertible {
    public var database: String
    public var collection: String

    public init(database: String, collection: String) {
        self.database = database
        self.collection = collection
    }

    public var description: String { "\(database).\(collection)" }

    /// Databases whose writes are not change-logged, as in MongoDB, where change streams cannot watch
    /// `admin`, `local` or `config`. Switchyard keeps its own bookkeeping (trigger state, invocation logs)
    /// in `local`, so that it never triggers anything.
    package static let unloggedDatabases: Set<String> = ["admin", "local", "config"]

    /// False for namespaces in `unloggedDatabases`.
    package var isChangeLogged: Bool { !Self.unloggedDatabases.contains(database) }

    /// Rejects names MongoDB rejects (empty, `$`, NUL, and for databases `/\. "*<>:|?`).
    static func validate(database: String) throws(StoreError) {
        let forbidden: Set<Character> = ["/", "\\", ".", " ", "\"", "$", "*", "<", ">", ":", "|", "?", "\0"]
        guard !database.isEmpty, database.utf8.count < 64, !database.contains(where: forbidden.contains) else {
            throw .location(73, "Invalid database name: '\(database)'")
        }
    }

    static func validate(collection: String, in database: String) throws(StoreError) {
        guard !collection.isEmpty, !collection.contains("$"), !collection.contains("\0"),
            !collection.hasPrefix("."), !collection.hasPrefix("system.")
        else { throw .location(73, "Invalid collection name: '\(database).\(collection)'") }
    }
}
