/// The SQLite engine's tables. The layout's version is the file's `user_version`; `current` has index entries
/// point at their document's rowid (layout 1) and change-log entries carry the tag of the writes that appended them
/// (layout 2: `origin`, indexed only where set, so untagged appends cost what they did). Files of earlier layouts
/// are upgraded when opened (`SQLiteSchema+Migrations`).
enum SQLiteSchema {
    static let current = 2

    private static let tables = """
        CREATE TABLE IF NOT EXISTS collections(
            id INTEGER PRIMARY KEY, db TEXT NOT NULL, name TEXT NOT NULL, options BLOB NOT NULL, UNIQUE(db, name));
        CREATE TABLE IF NOT EXISTS indexes(
            id INTEGER PRIMARY KEY, collection INTEGER NOT NULL, spec BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS documents(
            id INTEGER PRIMARY KEY, collection INTEGER NOT NULL, key BLOB NOT NULL, body BLOB NOT NULL,
            UNIQUE(collection, key));
        CREATE TABLE IF NOT EXISTS index_entries(
            idx INTEGER NOT NULL, key BLOB NOT NULL, doc INTEGER NOT NULL,
            PRIMARY KEY(idx, key, doc)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS changes(
            seq INTEGER PRIMARY KEY, wall_time INTEGER NOT NULL, event BLOB NOT NULL, origin TEXT);
        CREATE INDEX IF NOT EXISTS changes_origin ON changes(origin) WHERE origin IS NOT NULL;
        CREATE TABLE IF NOT EXISTS metadata(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        """

    /// Creates the tables of a new file, migrates a file of an earlier layout in one transaction, and
    /// refuses a file written by a later version of the store.
    static func prepare(_ connection: SQLiteConnection) throws(StoreError) {
        try connection.execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            let version = try connection.integer("PRAGMA user_version")
            if version > current {
                throw StoreError.location(
                    17_012,
                    "\(connection.path) was written by a newer version of the store (layout \(version), this one "
                        + "reads layout \(current)): open it with that version, or start from a new data directory")
            }
            if version < current,
                try connection.integer("SELECT count(*) FROM sqlite_master WHERE name = 'documents'") > 0
            {
                try migrate(connection, from: version)
            }
            try connection.execute(tables)
            try connection.execute("PRAGMA user_version = \(current)")
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
