/// Files written with the store's earlier layouts, brought to `SQLiteSchema.current` inside the transaction that
/// opens them, so a data directory from any earlier release opens (and the rest of the engine knows one layout only).
///
/// Layout 0 is every file made before the layout was recorded (`user_version` 0): its index entries hold the
/// document's `_id` key rather than its rowid, and in the oldest of them the documents table has no rowids. Layout 1
/// has no `origin` column in the change log.
extension SQLiteSchema {
    /// The metadata entry naming the last change-log sequence appended before the log kept tags (a migrated file).
    static let untaggedThrough = "untaggedThrough"

    /// Upgrades a file of layout `version` (below `current`) to `current`'s tables; the caller's transaction
    /// commits it with the new `user_version`, or rolls all of it back.
    static func migrate(_ connection: SQLiteConnection, from version: Int) throws(StoreError) {
        if version == 0 { try migrateFromUnversioned(connection) }
        if version <= 1 { try addChangeOrigins(connection) }
    }

    /// Adds the change log's `origin` column, and notes where the log's untagged entries end: their writes' tags
    /// were never kept, which a reader of tags has to tell from writes that had none.
    private static func addChangeOrigins(_ connection: SQLiteConnection) throws(StoreError) {
        guard try connection.integer("SELECT count(*) FROM sqlite_master WHERE name = 'changes'") > 0,
            try connection.integer("SELECT count(*) FROM pragma_table_info('changes') WHERE name = 'origin'") == 0
        else { return }
        try connection.execute(
            """
            ALTER TABLE changes ADD COLUMN origin TEXT;
            CREATE TABLE IF NOT EXISTS metadata(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
            INSERT OR REPLACE INTO metadata(name, value) SELECT '\(untaggedThrough)', max(
                coalesce((SELECT max(seq) FROM changes), 0),
                coalesce((SELECT value FROM metadata WHERE name = 'prunedThrough'), 0));
            """)
    }

    /// Gives the documents table rowids when it has none, then repoints every index entry from the
    /// document's `_id` key to its rowid.
    private static func migrateFromUnversioned(_ connection: SQLiteConnection) throws(StoreError) {
        let rowidColumns = try connection.integer(
            "SELECT count(*) FROM pragma_table_info('documents') WHERE name = 'id'")
        if rowidColumns == 0 {
            try connection.execute(
                """
                CREATE TABLE documents_migrated(
                    id INTEGER PRIMARY KEY, collection INTEGER NOT NULL, key BLOB NOT NULL, body BLOB NOT NULL,
                    UNIQUE(collection, key));
                INSERT INTO documents_migrated(collection, key, body)
                    SELECT collection, key, body FROM documents ORDER BY collection, key;
                DROP TABLE documents;
                ALTER TABLE documents_migrated RENAME TO documents;
                """)
        }
        try connection.execute(
            """
            CREATE TABLE index_entries_migrated(
                idx INTEGER NOT NULL, key BLOB NOT NULL, doc INTEGER NOT NULL,
                PRIMARY KEY(idx, key, doc)) WITHOUT ROWID;
            INSERT OR IGNORE INTO index_entries_migrated(idx, key, doc)
                SELECT e.idx, e.key, d.id FROM index_entries e JOIN indexes i ON i.id = e.idx
                JOIN documents d ON d.collection = i.collection AND d.key = e.doc;
            DROP TABLE index_entries;
            ALTER TABLE index_entries_migrated RENAME TO index_entries;
            """)
    }
}
