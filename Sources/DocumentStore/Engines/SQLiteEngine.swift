import BSON
import CSQLite
import Foundation

/// The durable engine: one SQLite database file in WAL mode. Documents live in one table, unique by
/// (collection id, `_id` index key); index entries in another keyed by (index id, key, document key), so
/// range scans are B-tree range scans over order-preserving keys. The documents table has rowids (the
/// unique key is an index beside it): a WITHOUT ROWID table keeps whole rows in its interior pages,
/// and with rows of documents that makes a deep, slow tree. Every statement names its columns, so a
/// file made with the earlier WITHOUT ROWID layout still works.
final class SQLiteEngine: StorageEngine {
    private let connection: SQLiteConnection
    /// Frames in the write-ahead log after the last commit, as SQLite reports them to its WAL hook.
    private let walFrames = WALFrameCount()
    /// What SQLite's own automatic checkpoint would wait for.
    private static let checkpointFrames: Int32 = 1_000

    /// Opens (creating when needed) `store.sqlite` inside `directory`, creating the directory too.
    init(directory: String, synchronous: SQLiteSynchronous, busyTimeoutMilliseconds: Int32) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .location(17_010, "cannot create data directory \(directory): \(error.localizedDescription)")
        }
        connection = try SQLiteConnection(path: directory + "/store.sqlite")
        do {
            connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
            try connection.execute("PRAGMA journal_mode=WAL")
            try connection.execute("PRAGMA synchronous=\(synchronous.pragmaValue)")
            try connection.execute(Self.schema)
            // Replaces SQLite's automatic checkpoint inside COMMIT (see `needsCheckpoint`).
            connection.onCommitToWAL(walFrames)
        } catch {
            connection.close()
            throw error
        }
    }

    /// A second connection to an existing store, for reads only (`ReadConnectionPool`). WAL mode is
    /// recorded in the file, so this connection reads in WAL mode too and never blocks the writer.
    init(readingFrom path: String, busyTimeoutMilliseconds: Int32) throws(StoreError) {
        connection = try SQLiteConnection(path: path, create: false)
        do {
            connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
            try connection.execute("PRAGMA query_only=ON")
        } catch {
            connection.close()
            throw error
        }
    }

    private static let schema = """
        CREATE TABLE IF NOT EXISTS collections(
            id INTEGER PRIMARY KEY, db TEXT NOT NULL, name TEXT NOT NULL, options BLOB NOT NULL, UNIQUE(db, name));
        CREATE TABLE IF NOT EXISTS indexes(
            id INTEGER PRIMARY KEY, collection INTEGER NOT NULL, spec BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS documents(
            id INTEGER PRIMARY KEY, collection INTEGER NOT NULL, key BLOB NOT NULL, body BLOB NOT NULL,
            UNIQUE(collection, key));
        CREATE TABLE IF NOT EXISTS index_entries(
            idx INTEGER NOT NULL, key BLOB NOT NULL, doc BLOB NOT NULL,
            PRIMARY KEY(idx, key, doc)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS changes(
            seq INTEGER PRIMARY KEY, wall_time INTEGER NOT NULL, event BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS metadata(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        """

    func close() { connection.close() }

    private func run(_ sql: StaticString, _ bind: (SQLiteStatement) -> Void = { _ in }) throws(StoreError) {
        let statement = try connection.statement(sql)
        bind(statement)
        try statement.run(sql)
    }

    func beginTransaction() throws(StoreError) { try run("BEGIN IMMEDIATE") }

    func commitTransaction() throws(StoreError) {
        do {
            try run("COMMIT")
        } catch {
            rollbackTransaction()
            throw error
        }
    }

    func rollbackTransaction() { try? run("ROLLBACK") }

    var needsCheckpoint: Bool { walFrames.value >= Self.checkpointFrames }

    /// A passive checkpoint, as SQLite's automatic one: copies what no reader still needs; a later
    /// commit's report keeps `needsCheckpoint` true until the log could be restarted.
    func checkpoint() {
        connection.checkpoint()
        walFrames.value = 0
    }

    /// Starts a read transaction: the statements until `endRead` see one committed snapshot.
    func beginRead() throws(StoreError) { try run("BEGIN") }

    func endRead() {
        if (try? run("COMMIT")) == nil { rollbackTransaction() }
    }

    func createSavepoint() throws(StoreError) { try run("SAVEPOINT op") }

    func releaseSavepoint() throws(StoreError) { try run("RELEASE op") }

    func rollbackToSavepoint() {
        try? run("ROLLBACK TO op")
        try? run("RELEASE op")
    }

    func collections() throws(StoreError) -> [CollectionRecord] {
        let sql: StaticString = "SELECT id, db, name, options FROM collections ORDER BY id"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        var records: [CollectionRecord] = []
        while try statement.step(sql) {
            records.append(
                CollectionRecord(
                    id: statement.int64(0), database: statement.text(1), name: statement.text(2),
                    options: try DocumentEncoding.decode(statement.blob(3))))
        }
        return records
    }

    func indexes() throws(StoreError) -> [IndexRecord] {
        let sql: StaticString = "SELECT id, collection, spec FROM indexes ORDER BY id"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        var records: [IndexRecord] = []
        while try statement.step(sql) {
            records.append(
                IndexRecord(
                    id: statement.int64(0), collection: statement.int64(1),
                    specification: try DocumentEncoding.decode(statement.blob(2))))
        }
        return records
    }

    private func lastInsertedId() throws(StoreError) -> Int64 {
        let sql: StaticString = "SELECT last_insert_rowid()"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        guard try statement.step(sql) else { throw connection.error("\(sql)") }
        return statement.int64(0)
    }

    func insertCollection(database: String, name: String, options: BSONDocument) throws(StoreError) -> Int64 {
        let body = try DocumentEncoding.encode(options)
        try run("INSERT INTO collections(db, name, options) VALUES(?, ?, ?)") {
            $0.bind(1, database)
            $0.bind(2, name)
            $0.bind(3, body)
        }
        return try lastInsertedId()
    }

    func updateCollection(_ record: CollectionRecord) throws(StoreError) {
        let body = try DocumentEncoding.encode(record.options)
        try run("UPDATE collections SET db = ?, name = ?, options = ? WHERE id = ?") {
            $0.bind(1, record.database)
            $0.bind(2, record.name)
            $0.bind(3, body)
            $0.bind(4, record.id)
        }
    }

    func deleteCollection(id: Int64) throws(StoreError) {
        try run("DELETE FROM index_entries WHERE idx IN (SELECT id FROM indexes WHERE collection = ?)") {
            $0.bind(1, id)
        }
        try run("DELETE FROM indexes WHERE collection = ?") { $0.bind(1, id) }
        try run("DELETE FROM documents WHERE collection = ?") { $0.bind(1, id) }
        try run("DELETE FROM collections WHERE id = ?") { $0.bind(1, id) }
    }

    func insertIndex(collection: Int64, specification: BSONDocument) throws(StoreError) -> Int64 {
        let body = try DocumentEncoding.encode(specification)
        try run("INSERT INTO indexes(collection, spec) VALUES(?, ?)") {
            $0.bind(1, collection)
            $0.bind(2, body)
        }
        return try lastInsertedId()
    }

    func deleteIndex(id: Int64) throws(StoreError) {
        try run("DELETE FROM index_entries WHERE idx = ?") { $0.bind(1, id) }
        try run("DELETE FROM indexes WHERE id = ?") { $0.bind(1, id) }
    }

    func document(collection: Int64, key: [UInt8]) throws(StoreError) -> [UInt8]? {
        let sql: StaticString = "SELECT body FROM documents WHERE collection = ? AND key = ?"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, collection)
        statement.bind(2, key)
        return try statement.step(sql) ? statement.blob(0) : nil
    }

    func insertDocument(collection: Int64, key: [UInt8], body: [UInt8]) throws(StoreError) -> Bool {
        try run("INSERT OR IGNORE INTO documents(collection, key, body) VALUES(?, ?, ?)") {
            $0.bind(1, collection)
            $0.bind(2, key)
            $0.bind(3, body)
        }
        return connection.changes > 0
    }

    func putDocument(collection: Int64, key: [UInt8], body: [UInt8]) throws(StoreError) {
        try run("INSERT OR REPLACE INTO documents(collection, key, body) VALUES(?, ?, ?)") {
            $0.bind(1, collection)
            $0.bind(2, key)
            $0.bind(3, body)
        }
    }

    func deleteDocument(collection: Int64, key: [UInt8]) throws(StoreError) {
        try run("DELETE FROM documents WHERE collection = ? AND key = ?") {
            $0.bind(1, collection)
            $0.bind(2, key)
        }
    }

    func scanDocuments(collection: Int64, _ visit: ([UInt8], [UInt8]) throws(StoreError) -> Bool) throws(StoreError) {
        let sql: StaticString = "SELECT key, body FROM documents WHERE collection = ? ORDER BY key"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, collection)
        while try statement.step(sql) {
            guard try visit(statement.blob(0), statement.blob(1)) else { return }
        }
    }

    func documentCount(collection: Int64) throws(StoreError) -> Int {
        let sql: StaticString = "SELECT count(*) FROM documents WHERE collection = ?"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, collection)
        guard try statement.step(sql) else { return 0 }
        return Int(statement.int64(0))
    }

    func insertIndexEntry(index: Int64, key: [UInt8], document: [UInt8]) throws(StoreError) {
        try run("INSERT OR IGNORE INTO index_entries(idx, key, doc) VALUES(?, ?, ?)") {
            $0.bind(1, index)
            $0.bind(2, key)
            $0.bind(3, document)
        }
    }

    func deleteIndexEntry(index: Int64, key: [UInt8], document: [UInt8]) throws(StoreError) {
        try run("DELETE FROM index_entries WHERE idx = ? AND key = ? AND doc = ?") {
            $0.bind(1, index)
            $0.bind(2, key)
            $0.bind(3, document)
        }
    }

    func firstIndexEntry(index: Int64, key: [UInt8]) throws(StoreError) -> [UInt8]? {
        let sql: StaticString = "SELECT doc FROM index_entries WHERE idx = ? AND key = ? LIMIT 1"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, index)
        statement.bind(2, key)
        return try statement.step(sql) ? statement.blob(0) : nil
    }

    func scanIndex(
        index: Int64, from lower: [UInt8], to upper: [UInt8]?, _ visit: ([UInt8], [UInt8]) throws(StoreError) -> Bool
    ) throws(StoreError) {
        let sql: StaticString =
            upper == nil
            ? "SELECT key, doc FROM index_entries WHERE idx = ? AND key >= ? ORDER BY key, doc"
            : "SELECT key, doc FROM index_entries WHERE idx = ? AND key >= ? AND key < ? ORDER BY key, doc"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, index)
        statement.bind(2, lower)
        if let upper { statement.bind(3, upper) }
        while try statement.step(sql) {
            guard try visit(statement.blob(0), statement.blob(1)) else { return }
        }
    }

    func scanIndexedDocuments(
        index: Int64, collection: Int64, from lower: [UInt8], to upper: [UInt8]?,
        _ visit: ([UInt8], [UInt8]) throws(StoreError) -> Bool
    ) throws(StoreError) {
        let sql: StaticString =
            upper == nil
            ? """
            SELECT e.doc, d.body FROM index_entries e JOIN documents d ON d.collection = ?1 AND d.key = e.doc
            WHERE e.idx = ?2 AND e.key >= ?3 ORDER BY e.key, e.doc
            """
            : """
            SELECT e.doc, d.body FROM index_entries e JOIN documents d ON d.collection = ?1 AND d.key = e.doc
            WHERE e.idx = ?2 AND e.key >= ?3 AND e.key < ?4 ORDER BY e.key, e.doc
            """
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, collection)
        statement.bind(2, index)
        statement.bind(3, lower)
        if let upper { statement.bind(4, upper) }
        while try statement.step(sql) {
            guard try visit(statement.blob(0), statement.blob(1)) else { return }
        }
    }

    func appendChange(_ change: ChangeRecord) throws(StoreError) {
        try run("INSERT INTO changes(seq, wall_time, event) VALUES(?, ?, ?)") {
            $0.bind(1, change.sequence)
            $0.bind(2, change.wallTime)
            $0.bind(3, change.event)
        }
    }

    func changes(after sequence: Int64, limit: Int) throws(StoreError) -> [ChangeRecord] {
        let sql: StaticString = "SELECT seq, wall_time, event FROM changes WHERE seq > ? ORDER BY seq LIMIT ?"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, sequence)
        statement.bind(2, Int64(limit))
        var records: [ChangeRecord] = []
        while try statement.step(sql) {
            records.append(
                ChangeRecord(sequence: statement.int64(0), wallTime: statement.int64(1), event: statement.blob(2)))
        }
        return records
    }

    func oldestChanges(limit: Int) throws(StoreError) -> [(sequence: Int64, wallTime: Int64, bytes: Int)] {
        let sql: StaticString = "SELECT seq, wall_time, length(event) FROM changes ORDER BY seq LIMIT ?"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, Int64(limit))
        var rows: [(sequence: Int64, wallTime: Int64, bytes: Int)] = []
        while try statement.step(sql) {
            rows.append((statement.int64(0), statement.int64(1), Int(statement.int64(2))))
        }
        return rows
    }

    func changeLogSummary() throws(StoreError) -> (count: Int, bytes: Int, lastSequence: Int64?) {
        let sql: StaticString = "SELECT count(*), coalesce(sum(length(event)), 0), max(seq) FROM changes"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        guard try statement.step(sql) else { return (0, 0, nil) }
        return (Int(statement.int64(0)), Int(statement.int64(1)), statement.isNull(2) ? nil : statement.int64(2))
    }

    func deleteChanges(through sequence: Int64) throws(StoreError) {
        try run("DELETE FROM changes WHERE seq <= ?") { $0.bind(1, sequence) }
    }

    func metadata(_ name: String) throws(StoreError) -> Int64? {
        let sql: StaticString = "SELECT value FROM metadata WHERE name = ?"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, name)
        return try statement.step(sql) ? statement.int64(0) : nil
    }

    func setMetadata(_ name: String, _ value: Int64) throws(StoreError) {
        try run("INSERT OR REPLACE INTO metadata(name, value) VALUES(?, ?)") {
            $0.bind(1, name)
            $0.bind(2, value)
        }
    }
}
