import BSON
import Foundation

/// The engine on a PostgreSQL database, over one libpq connection: the same layout as SQLite's in the schema
/// `switchyard` (`PostgreSQLSchema`). Documents are BSON bytes keyed by (collection id, `_id` index key); index
/// entries are rows keyed by (index id, key, document row) under a B-tree primary key. The store's index keys are
/// built to order as their bytes do (`IndexKey`), and `bytea` compares bytewise (memcmp, then length) as SQLite's
/// blobs do, so a key range is a B-tree range scan on either engine. A document's change-log row is written in the
/// document's transaction; savepoints are SQL savepoints.
///
/// A commit is as durable as the server's `synchronous_commit` makes it (on by default: flushed to the server's
/// WAL before the commit returns); a URL may set it per connection (`?options=-csynchronous_commit%3Doff`).
///
/// Several store instances may share the database (`SharedStorageEngine`): the change log is numbered by the
/// database's clock row, and a transaction that appends to it or changes the catalog notifies
/// `PostgreSQLCommitListener.channel`, in the statement that moves the clock, with this instance's name and the
/// appended event's collection as the payload (`PostgreSQLCommitNotice`). The server delivers a notification only
/// once its transaction commits, and one per transaction for each distinct payload however many statements sent
/// it, so a batch of writes to one collection costs one; the listeners read the clock themselves. Sent with the
/// COMMIT instead (with the last sequence as payload, in the same round trip), it was a statement the server parses
/// and plans on every commit, where this one rides on a prepared statement. Collections written with no append
/// (`local`'s, unlogged) are named by one more statement before the commit (`announce`).
final class PostgreSQLEngine: SharedStorageEngine {
    private let connection: PostgreSQLConnection
    /// This instance's name in its notifications, so that its listener drops its own.
    private let instance = UUID().uuidString

    init(_ location: PostgreSQLLocation) throws(StoreError) {
        connection = try PostgreSQLConnection(location)
        do {
            try PostgreSQLSchema.prepare(connection)
        } catch {
            connection.close()
            throw error
        }
    }

    func close() { connection.close() }

    func beginTransaction() throws(StoreError) {
        try connection.execute("BEGIN")
    }

    func commitTransaction() throws(StoreError) {
        do throws(StoreError) {
            // A transaction that failed earlier answers its COMMIT with ROLLBACK, and nothing of it is kept.
            guard try connection.execute("COMMIT") == "COMMIT" else {
                throw .storageFailure("PostgreSQL at \(connection.location) rolled back a failed transaction")
            }
        } catch {
            rollbackTransaction()
            throw error
        }
    }

    func rollbackTransaction() { _ = try? connection.execute("ROLLBACK") }

    /// The server checkpoints its own write-ahead log.
    var checkpointNeed: CheckpointNeed { .none }

    func checkpoint() {}

    func makeCheckpointer() throws(StoreError) -> Checkpointer? { nil }

    func createSavepoint() throws(StoreError) { try connection.execute("SAVEPOINT op") }

    func releaseSavepoint() throws(StoreError) { try connection.execute("RELEASE op") }

    func rollbackToSavepoint() {
        _ = try? connection.execute("ROLLBACK TO op")
        _ = try? connection.execute("RELEASE op")
    }

    func collections() throws(StoreError) -> [CollectionRecord] {
        let rows = try connection.query("SELECT id, db, name, options FROM switchyard.collections ORDER BY id")
        var records: [CollectionRecord] = []
        for row in 0..<rows.count {
            records.append(
                CollectionRecord(
                    id: rows.int64(row, 0), database: rows.text(row, 1), name: rows.text(row, 2),
                    options: try DocumentEncoding.decode(rows.blob(row, 3))))
        }
        return records
    }

    func indexes() throws(StoreError) -> [IndexRecord] {
        let rows = try connection.query("SELECT id, collection, spec FROM switchyard.indexes ORDER BY id")
        var records: [IndexRecord] = []
        for row in 0..<rows.count {
            records.append(
                IndexRecord(
                    id: rows.int64(row, 0), collection: rows.int64(row, 1),
                    specification: try DocumentEncoding.decode(rows.blob(row, 2))))
        }
        return records
    }

    /// The one int8 a statement returns, or nil when it returns no row.
    private func single(_ sql: StaticString, _ parameters: [PostgreSQLValue]) throws(StoreError) -> Int64? {
        let rows = try connection.query(sql, parameters)
        return rows.count > 0 && !rows.isNull(0, 0) ? rows.int64(0, 0) : nil
    }

    private func inserted(_ sql: StaticString, _ parameters: [PostgreSQLValue]) throws(StoreError) -> Int64 {
        guard let id = try single(sql, parameters) else {
            throw .storageFailure("PostgreSQL at \(connection.location) returned no id from \(sql)")
        }
        return id
    }

    func insertCollection(database: String, name: String, options: BSONDocument) throws(StoreError) -> Int64 {
        try inserted(
            "INSERT INTO switchyard.collections(db, name, options) VALUES($1, $2, $3) RETURNING id",
            [.text(database), .text(name), .bytes(try DocumentEncoding.encode(options))])
    }

    func updateCollection(_ record: CollectionRecord) throws(StoreError) {
        _ = try connection.query(
            "UPDATE switchyard.collections SET db = $1, name = $2, options = $3 WHERE id = $4",
            [
                .text(record.database), .text(record.name), .bytes(try DocumentEncoding.encode(record.options)),
                .int64(record.id),
            ])
    }

    func deleteCollection(id: Int64) throws(StoreError) {
        _ = try connection.query(
            "DELETE FROM switchyard.index_entries WHERE idx IN (SELECT id FROM switchyard.indexes WHERE collection = $1)",
            [.int64(id)])
        _ = try connection.query("DELETE FROM switchyard.indexes WHERE collection = $1", [.int64(id)])
        _ = try connection.query("DELETE FROM switchyard.documents WHERE collection = $1", [.int64(id)])
        _ = try connection.query("DELETE FROM switchyard.collections WHERE id = $1", [.int64(id)])
    }

    func insertIndex(collection: Int64, specification: BSONDocument) throws(StoreError) -> Int64 {
        try inserted(
            "INSERT INTO switchyard.indexes(collection, spec) VALUES($1, $2) RETURNING id",
            [.int64(collection), .bytes(try DocumentEncoding.encode(specification))])
    }

    func deleteIndex(id: Int64) throws(StoreError) {
        _ = try connection.query("DELETE FROM switchyard.index_entries WHERE idx = $1", [.int64(id)])
        _ = try connection.query("DELETE FROM switchyard.indexes WHERE id = $1", [.int64(id)])
    }

    func document(collection: Int64, key: [UInt8]) throws(StoreError) -> [UInt8]? {
        let rows = try connection.query(
            "SELECT body FROM switchyard.documents WHERE collection = $1 AND key = $2",
            [.int64(collection), .bytes(key)])
        return rows.count > 0 ? rows.blob(0, 0) : nil
    }

    func documentRow(collection: Int64, key: [UInt8]) throws(StoreError) -> DocumentRow? {
        try single(
            "SELECT id FROM switchyard.documents WHERE collection = $1 AND key = $2", [.int64(collection), .bytes(key)])
    }

    func insertDocument(collection: Int64, key: [UInt8], body: [UInt8]) throws(StoreError) -> DocumentRow? {
        try single(
            """
            INSERT INTO switchyard.documents(collection, key, body) VALUES($1, $2, $3)
            ON CONFLICT (collection, key) DO NOTHING RETURNING id
            """, [.int64(collection), .bytes(key), .bytes(body)])
    }

    func updateDocument(row: DocumentRow, body: [UInt8]) throws(StoreError) {
        _ = try connection.query(
            "UPDATE switchyard.documents SET body = $1 WHERE id = $2", [.bytes(body), .int64(row)])
    }

    func deleteDocument(row: DocumentRow) throws(StoreError) {
        _ = try connection.query("DELETE FROM switchyard.documents WHERE id = $1", [.int64(row)])
    }

    func deleteDocument(collection: Int64, key: [UInt8]) throws(StoreError) -> Bool {
        try connection.query(
            "DELETE FROM switchyard.documents WHERE collection = $1 AND key = $2", [.int64(collection), .bytes(key)]
        ).affected > 0
    }

    /// Documents a scan reads per statement: `visit` may write through the engine (an index build, an update of
    /// many), which the connection cannot do while it streams a result, so the scan reads a page, visits it, and
    /// reads the next from the last key on.
    private static let scanPage: Int64 = 256

    func scanDocuments(collection: Int64, _ visit: (DocumentRow, [UInt8]) throws(StoreError) -> Bool)
        throws(StoreError)
    {
        var rows = try connection.query(
            "SELECT id, body, key FROM switchyard.documents WHERE collection = $1 ORDER BY key LIMIT $2",
            [.int64(collection), .int64(Self.scanPage)])
        while rows.count > 0 {
            for row in 0..<rows.count {
                guard try visit(rows.int64(row, 0), rows.blob(row, 1)) else { return }
            }
            guard rows.count == Self.scanPage else { return }
            rows = try connection.query(
                """
                SELECT id, body, key FROM switchyard.documents WHERE collection = $1 AND key > $2 ORDER BY key LIMIT $3
                """, [.int64(collection), .bytes(rows.blob(rows.count - 1, 2)), .int64(Self.scanPage)])
        }
    }

    func documentCount(collection: Int64) throws(StoreError) -> Int {
        Int(try single("SELECT count(*) FROM switchyard.documents WHERE collection = $1", [.int64(collection)]) ?? 0)
    }

    func insertIndexEntry(index: Int64, key: [UInt8], row: DocumentRow) throws(StoreError) {
        _ = try connection.query(
            "INSERT INTO switchyard.index_entries(idx, key, doc) VALUES($1, $2, $3) ON CONFLICT DO NOTHING",
            [.int64(index), .bytes(key), .int64(row)])
    }

    func deleteIndexEntry(index: Int64, key: [UInt8], row: DocumentRow) throws(StoreError) {
        _ = try connection.query(
            "DELETE FROM switchyard.index_entries WHERE idx = $1 AND key = $2 AND doc = $3",
            [.int64(index), .bytes(key), .int64(row)])
    }

    func firstIndexEntry(index: Int64, key: [UInt8]) throws(StoreError) -> DocumentRow? {
        try single(
            "SELECT doc FROM switchyard.index_entries WHERE idx = $1 AND key = $2 LIMIT 1",
            [.int64(index), .bytes(key)])
    }

    func scanIndexedDocuments(
        index: Int64, from lower: [UInt8], to upper: [UInt8]?,
        _ visit: (DocumentRow, UnsafeRawBufferPointer) throws(StoreError) -> Bool
    ) throws(StoreError) {
        let read = { (rows: PostgreSQLRows) throws(StoreError) -> Bool in try visit(rows.int64(0, 0), rows.bytes(0, 1))
        }
        if let upper {
            try connection.stream(
                """
                SELECT e.doc, d.body FROM switchyard.index_entries e JOIN switchyard.documents d ON d.id = e.doc
                WHERE e.idx = $1 AND e.key >= $2 AND e.key < $3 ORDER BY e.key, e.doc
                """, [.int64(index), .bytes(lower), .bytes(upper)], read)
        } else {
            try connection.stream(
                """
                SELECT e.doc, d.body FROM switchyard.index_entries e JOIN switchyard.documents d ON d.id = e.doc
                WHERE e.idx = $1 AND e.key >= $2 ORDER BY e.key, e.doc
                """, [.int64(index), .bytes(lower)], read)
        }
    }

    /// Appends under the database's next sequence, taken from the clock row in the same statement (no extra round
    /// trip). The row's lock is held until commit: of several instances appending to one database, the one holding
    /// it commits before the next appends, so sequence order is commit order, with no gap (a rolled-back append
    /// rolls its sequence back), and a change stream that has read sequence N never sees a smaller one commit later.
    /// The store's own proposal (`change.sequence`) is that of an instance alone on the log; the database's wins.
    func appendChange(_ change: ChangeRecord) throws(StoreError) -> (sequence: Int64, catalogVersion: Int64?) {
        let notice = PostgreSQLCommitNotice.payload(instance: instance, wrote: change.namespace.map { [$0] } ?? [])
        let parameters: [PostgreSQLValue] = [
            .int64(change.wallTime), .bytes(change.event), .text(PostgreSQLCommitListener.channel), .text(notice),
        ]
        // Untagged entries (most) keep the statement without the column.
        let rows: PostgreSQLRows
        if let origin = change.origin {
            rows = try connection.query(
                """
                WITH tick AS (UPDATE switchyard.clock SET sequence = sequence + 1 RETURNING sequence, catalog),
                logged AS (
                    INSERT INTO switchyard.changes(seq, wall_time, event, origin) SELECT sequence, $1, $2, $5 FROM tick)
                SELECT sequence, catalog, pg_notify($3, $4) FROM tick
                """, parameters + [.text(origin)])
        } else {
            rows = try connection.query(
                """
                WITH tick AS (UPDATE switchyard.clock SET sequence = sequence + 1 RETURNING sequence, catalog),
                logged AS (INSERT INTO switchyard.changes(seq, wall_time, event) SELECT sequence, $1, $2 FROM tick)
                SELECT sequence, catalog, pg_notify($3, $4) FROM tick
                """, parameters)
        }
        guard rows.count == 1 else {
            throw .storageFailure("PostgreSQL at \(connection.location) has no clock row in switchyard.clock")
        }
        return (rows.int64(0, 0), rows.int64(0, 1))
    }

    func advanceCatalogVersion() throws(StoreError) -> Int64 {
        guard
            let version = try single(
                """
                WITH bump AS (UPDATE switchyard.clock SET catalog = catalog + 1 RETURNING catalog)
                SELECT catalog, pg_notify($1, $2) FROM bump
                """, [.text(PostgreSQLCommitListener.channel), .text(instance)])
        else {
            throw .storageFailure("PostgreSQL at \(connection.location) has no clock row in switchyard.clock")
        }
        return version
    }

    func clock() throws(StoreError) -> (sequence: Int64, catalogVersion: Int64) {
        let rows = try connection.query("SELECT sequence, catalog FROM switchyard.clock")
        guard rows.count == 1 else {
            throw .storageFailure("PostgreSQL at \(connection.location) has no clock row in switchyard.clock")
        }
        return (rows.int64(0, 0), rows.int64(0, 1))
    }

    func announce(_ namespaces: Set<Namespace>) throws(StoreError) {
        _ = try connection.query(
            "SELECT pg_notify($1, $2)",
            [
                .text(PostgreSQLCommitListener.channel),
                .text(PostgreSQLCommitNotice.payload(instance: instance, wrote: namespaces)),
            ])
    }

    func startCommitListener(_ heard: @escaping @Sendable (Int64, Int64, CommittedWrites) -> Void)
        throws(StoreError) -> any CommitListener
    {
        try PostgreSQLCommitListener(connection.location, instance: instance, heard: heard)
    }

    func changes(after sequence: Int64, limit: Int) throws(StoreError) -> [ChangeRecord] {
        let rows = try connection.query(
            "SELECT seq, wall_time, event FROM switchyard.changes WHERE seq > $1 ORDER BY seq LIMIT $2",
            [.int64(sequence), .int64(Int64(limit))])
        return (0..<rows.count).map { row in
            ChangeRecord(sequence: rows.int64(row, 0), wallTime: rows.int64(row, 1), event: rows.blob(row, 2))
        }
    }

    func changes(origin: String) throws(StoreError) -> [ChangeRecord] {
        let rows = try connection.query(
            "SELECT seq, wall_time, event FROM switchyard.changes WHERE origin = $1 ORDER BY seq", [.text(origin)])
        return (0..<rows.count).map { row in
            ChangeRecord(sequence: rows.int64(row, 0), wallTime: rows.int64(row, 1), event: rows.blob(row, 2))
        }
    }

    func originsTaggedAfter() throws(StoreError) -> Int64 {
        try metadata("untaggedThrough") ?? 0
    }

    func oldestChanges(limit: Int) throws(StoreError) -> [(sequence: Int64, wallTime: Int64, bytes: Int)] {
        let rows = try connection.query(
            "SELECT seq, wall_time, length(event)::int8 FROM switchyard.changes ORDER BY seq LIMIT $1",
            [.int64(Int64(limit))])
        return (0..<rows.count).map { row in (rows.int64(row, 0), rows.int64(row, 1), Int(rows.int64(row, 2))) }
    }

    func changeLogSummary() throws(StoreError) -> (count: Int, bytes: Int, lastSequence: Int64?) {
        let rows = try connection.query(
            "SELECT count(*), coalesce(sum(length(event)), 0)::int8, max(seq) FROM switchyard.changes")
        guard rows.count > 0 else { return (0, 0, nil) }
        return (Int(rows.int64(0, 0)), Int(rows.int64(0, 1)), rows.isNull(0, 2) ? nil : rows.int64(0, 2))
    }

    func deleteChanges(through sequence: Int64) throws(StoreError) {
        _ = try connection.query("DELETE FROM switchyard.changes WHERE seq <= $1", [.int64(sequence)])
    }

    func metadata(_ name: String) throws(StoreError) -> Int64? {
        try single("SELECT value FROM switchyard.metadata WHERE name = $1", [.text(name)])
    }

    func setMetadata(_ name: String, _ value: Int64) throws(StoreError) {
        _ = try connection.query(
            """
            INSERT INTO switchyard.metadata(name, value) VALUES($1, $2)
            ON CONFLICT (name) DO UPDATE SET value = excluded.value
            """, [.text(name), .int64(value)])
    }
}
