import BSON
import CSQLite
import Foundation

/// The durable engine: one SQLite database file in WAL mode. Documents live in one table, unique by
/// (collection id, `_id` index key); index entries in another keyed by (index id, key, document rowid),
/// so range scans are B-tree range scans over order-preserving keys, and an entry leads straight to its
/// document's row: a lookup reads two B-trees, as a table with an SQL index would. The documents table
/// has rowids (the unique key is an index beside it): a WITHOUT ROWID table keeps whole rows in its
/// interior pages, and with rows of documents that makes a deep, slow tree.
///
/// The layout's version is the file's `user_version`; files of earlier layouts are migrated on open
/// (`SQLiteSchema+Migrations`).
final class SQLiteEngine: StorageEngine {
    private let connection: SQLiteConnection
    /// Frames in the write-ahead log after the last commit, as SQLite reports them to its WAL hook.
    private let walFrames = WALFrameCount()
    /// What SQLite's own automatic checkpoint would wait for.
    private static let checkpointFrames: Int32 = 1_000
    /// While writes go on, a checkpoint beside them never lets the log start over; past this size the
    /// writers wait for one that does. It bounds the log at about 10 MB of 4 KB pages.
    private static let blockingCheckpointFrames: Int32 = 2_500
    private let path: String

    /// Opens (creating when needed) `store.sqlite` inside `directory`, creating the directory too.
    init(directory: String, synchronous: SQLiteSynchronous, busyTimeoutMilliseconds: Int32) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .cannotOpenStore("cannot create data directory \(directory): \(error.localizedDescription)")
        }
        path = directory + "/store.sqlite"
        connection = try SQLiteConnection(path: path)
        do {
            connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
            try connection.execute("PRAGMA journal_mode=WAL")
            try connection.execute("PRAGMA synchronous=\(synchronous.pragmaValue)")
            try SQLiteSchema.prepare(connection)
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
        self.path = path
        connection = try SQLiteConnection(path: path, create: false)
        do {
            connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
            try connection.execute("PRAGMA query_only=ON")
        } catch {
            connection.close()
            throw error
        }
    }

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

    var checkpointNeed: CheckpointNeed {
        let frames = walFrames.value
        if frames >= Self.blockingCheckpointFrames { return .blockingWriters }
        return frames >= Self.checkpointFrames ? .besideWriters : .none
    }

    /// A passive checkpoint, as SQLite's automatic one: copies what no reader still needs; a later
    /// commit's report keeps `checkpointNeed` up until the log could be restarted.
    func checkpoint() {
        connection.checkpoint()
        walFrames.value = 0
    }

    func makeCheckpointer() throws(StoreError) -> Checkpointer? {
        let checkpointing = try SQLiteConnection(path: path, create: false)
        // A connection learns that the file is in WAL mode when it first reads it; until then its checkpoints
        // return at once, having copied nothing.
        do {
            try checkpointing.execute("PRAGMA journal_mode=WAL")
        } catch {
            checkpointing.close()
            throw error
        }
        return SQLiteCheckpointer(connection: checkpointing, frames: walFrames)
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

    func documentRow(collection: Int64, key: [UInt8]) throws(StoreError) -> DocumentRow? {
        let sql: StaticString = "SELECT id FROM documents WHERE collection = ? AND key = ?"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, collection)
        statement.bind(2, key)
        return try statement.step(sql) ? statement.int64(0) : nil
    }

    func insertDocument(collection: Int64, key: [UInt8], body: [UInt8]) throws(StoreError) -> DocumentRow? {
        try run("INSERT OR IGNORE INTO documents(collection, key, body) VALUES(?, ?, ?)") {
            $0.bind(1, collection)
            $0.bind(2, key)
            $0.bind(3, body)
        }
        return connection.changes > 0 ? connection.lastInsertRowid : nil
    }

    func updateDocument(row: DocumentRow, body: [UInt8]) throws(StoreError) {
        try run("UPDATE documents SET body = ? WHERE id = ?") {
            $0.bind(1, body)
            $0.bind(2, row)
        }
    }

    func deleteDocument(row: DocumentRow) throws(StoreError) {
        try run("DELETE FROM documents WHERE id = ?") { $0.bind(1, row) }
    }

    func deleteDocument(collection: Int64, key: [UInt8]) throws(StoreError) -> Bool {
        try run("DELETE FROM documents WHERE collection = ? AND key = ?") {
            $0.bind(1, collection)
            $0.bind(2, key)
        }
        return connection.changes > 0
    }

    func scanDocuments(collection: Int64, _ visit: (DocumentRow, [UInt8]) throws(StoreError) -> Bool)
        throws(StoreError)
    {
        let sql: StaticString = "SELECT id, body FROM documents WHERE collection = ? ORDER BY key"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, collection)
        while try statement.step(sql) {
            guard try visit(statement.int64(0), statement.blob(1)) else { return }
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

    func insertIndexEntry(index: Int64, key: [UInt8], row: DocumentRow) throws(StoreError) {
        try run("INSERT OR IGNORE INTO index_entries(idx, key, doc) VALUES(?, ?, ?)") {
            $0.bind(1, index)
            $0.bind(2, key)
            $0.bind(3, row)
        }
    }

    func deleteIndexEntry(index: Int64, key: [UInt8], row: DocumentRow) throws(StoreError) {
        try run("DELETE FROM index_entries WHERE idx = ? AND key = ? AND doc = ?") {
            $0.bind(1, index)
            $0.bind(2, key)
            $0.bind(3, row)
        }
    }

    func firstIndexEntry(index: Int64, key: [UInt8]) throws(StoreError) -> DocumentRow? {
        let sql: StaticString = "SELECT doc FROM index_entries WHERE idx = ? AND key = ? LIMIT 1"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, index)
        statement.bind(2, key)
        return try statement.step(sql) ? statement.int64(0) : nil
    }

    func scanIndexedDocuments(
        index: Int64, from lower: [UInt8], to upper: [UInt8]?,
        _ visit: (DocumentRow, UnsafeRawBufferPointer) throws(StoreError) -> Bool
    ) throws(StoreError) {
        let sql: StaticString =
            upper == nil
            ? """
            SELECT e.doc, d.body FROM index_entries e JOIN documents d ON d.id = e.doc
            WHERE e.idx = ?1 AND e.key >= ?2 ORDER BY e.key, e.doc
            """
            : """
            SELECT e.doc, d.body FROM index_entries e JOIN documents d ON d.id = e.doc
            WHERE e.idx = ?1 AND e.key >= ?2 AND e.key < ?3 ORDER BY e.key, e.doc
            """
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, index)
        statement.bind(2, lower)
        if let upper { statement.bind(3, upper) }
        while try statement.step(sql) {
            guard try visit(statement.int64(0), statement.blobBytes(1)) else { return }
        }
    }

    func appendChange(_ change: ChangeRecord) throws(StoreError) -> (sequence: Int64, catalogVersion: Int64?) {
        guard let origin = change.origin else {
            try run("INSERT INTO changes(seq, wall_time, event) VALUES(?, ?, ?)") {
                $0.bind(1, change.sequence)
                $0.bind(2, change.wallTime)
                $0.bind(3, change.event)
            }
            return (change.sequence, nil)
        }
        try run("INSERT INTO changes(seq, wall_time, event, origin) VALUES(?, ?, ?, ?)") {
            $0.bind(1, change.sequence)
            $0.bind(2, change.wallTime)
            $0.bind(3, change.event)
            $0.bind(4, origin)
        }
        return (change.sequence, nil)
    }

    func changes(origin: String) throws(StoreError) -> [ChangeRecord] {
        let sql: StaticString = "SELECT seq, wall_time, event FROM changes WHERE origin = ? ORDER BY seq"
        let statement = try connection.statement(sql)
        defer { statement.finish() }
        statement.bind(1, origin)
        var records: [ChangeRecord] = []
        while try statement.step(sql) {
            records.append(
                ChangeRecord(sequence: statement.int64(0), wallTime: statement.int64(1), event: statement.blob(2)))
        }
        return records
    }

    func originsTaggedAfter() throws(StoreError) -> Int64 {
        try metadata(SQLiteSchema.untaggedThrough) ?? 0
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

/// A second connection to the store's file that only checkpoints, passively (it copies the frames no reader
/// needs and never waits for the writer), on a thread of its own: the copy and its fsync, milliseconds per
/// thousand pages, run while the store's thread goes on committing. Requests made while one runs are met by
/// the next.
private final class SQLiteCheckpointer: Checkpointer, @unchecked Sendable {
    // Used by the checkpointing thread alone once started (and closed after it ended).
    private let connection: SQLiteConnection
    private let frames: WALFrameCount
    // `requested`, `closing` and `ended` are guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var requested = false
    private var closing = false
    private var ended = false

    init(connection: SQLiteConnection, frames: WALFrameCount) {
        self.connection = connection
        self.frames = frames
        Thread.detachNewThread { [self] in run() }
    }

    func checkpoint() {
        // Cleared first: a commit during the checkpoint reports the log's size again, so the next
        // checkpoint is not missed.
        frames.value = 0
        condition.lock()
        requested = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while !requested && !closing { condition.wait() }
            guard !closing else {
                ended = true
                condition.broadcast()
                condition.unlock()
                return
            }
            requested = false
            condition.unlock()
            connection.checkpoint()
        }
    }

    /// Waits for a checkpoint under way to end.
    func close() {
        condition.lock()
        closing = true
        condition.broadcast()
        while !ended { condition.wait() }
        condition.unlock()
        connection.close()
    }
}
