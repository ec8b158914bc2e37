/// The PostgreSQL engine's tables, in a schema of their own (`switchyard`) so they sit beside an application's
/// tables in a shared database without clashing. The layout's version is the `schema` row of `metadata`.
///
/// `clock` is one row, the database's last change-log sequence and catalog version (`SharedStorageEngine`): added
/// beside the tables of layout 1, it starts after the log a store of before it left (or what was pruned of it).
/// So is `changes.origin`, the tag of the writes that appended an entry (indexed only where set): where an older
/// store's log had none, `untaggedThrough` in `metadata` says up to which sequence entries were appended untagged.
enum PostgreSQLSchema {
    static let version: Int64 = 1

    /// The advisory lock key the schema is created under: a fixed number, the same in every process on the database.
    static let schemaLock: Int64 = 7_954_723_841

    /// Creates the tables when missing (without the notices of those that exist), under the advisory lock so that two processes opening one new database
    /// together do not race on `CREATE`.
    static func prepare(_ connection: PostgreSQLConnection) throws(StoreError) {
        try connection.execute(
            """
            SET client_min_messages TO warning;
            BEGIN;
            SELECT pg_advisory_xact_lock(\(schemaLock));
            CREATE SCHEMA IF NOT EXISTS switchyard;
            CREATE TABLE IF NOT EXISTS switchyard.collections(
                id bigserial PRIMARY KEY, db text NOT NULL, name text NOT NULL, options bytea NOT NULL);
            CREATE TABLE IF NOT EXISTS switchyard.indexes(
                id bigserial PRIMARY KEY, collection bigint NOT NULL, spec bytea NOT NULL);
            CREATE TABLE IF NOT EXISTS switchyard.documents(
                id bigserial PRIMARY KEY, collection bigint NOT NULL, key bytea NOT NULL, body bytea NOT NULL,
                UNIQUE (collection, key));
            CREATE TABLE IF NOT EXISTS switchyard.index_entries(
                idx bigint NOT NULL, key bytea NOT NULL, doc bigint NOT NULL, PRIMARY KEY (idx, key, doc));
            CREATE TABLE IF NOT EXISTS switchyard.changes(
                seq bigint PRIMARY KEY, wall_time bigint NOT NULL, event bytea NOT NULL, origin text);
            CREATE TABLE IF NOT EXISTS switchyard.metadata(name text PRIMARY KEY, value bigint NOT NULL);
            INSERT INTO switchyard.metadata(name, value) VALUES('schema', \(version)) ON CONFLICT (name) DO NOTHING;
            CREATE TABLE IF NOT EXISTS switchyard.clock(
                id int PRIMARY KEY CHECK (id = 1), sequence bigint NOT NULL, catalog bigint NOT NULL);
            INSERT INTO switchyard.clock(id, sequence, catalog)
            SELECT 1, greatest(max(seq), (SELECT value FROM switchyard.metadata WHERE name = 'prunedThrough'), 0), 0
            FROM switchyard.changes ON CONFLICT (id) DO NOTHING;
            INSERT INTO switchyard.metadata(name, value) SELECT 'untaggedThrough', sequence FROM switchyard.clock
            WHERE NOT EXISTS (
                SELECT 1 FROM information_schema.columns
                WHERE table_schema = 'switchyard' AND table_name = 'changes' AND column_name = 'origin')
            ON CONFLICT (name) DO NOTHING;
            ALTER TABLE switchyard.changes ADD COLUMN IF NOT EXISTS origin text;
            CREATE INDEX IF NOT EXISTS changes_origin ON switchyard.changes(origin, seq) WHERE origin IS NOT NULL;
            COMMIT;
            """)
        let rows = try connection.query("SELECT value FROM switchyard.metadata WHERE name = 'schema'")
        let found = rows.count > 0 ? rows.int64(0, 0) : 0
        guard found == version else {
            throw .cannotOpenStore(
                "the PostgreSQL store at \(connection.location) has layout version \(found), this switchyard reads \(version)"
            )
        }
    }
}
