import CSQLite
import Synchronization

/// One SQLite connection with a prepared-statement cache. Used from one thread at a time (the store's).
final class SQLiteConnection {
    private let handle: OpaquePointer
    /// Keyed by the address of the SQL literal: cheaper than hashing its text on every use.
    private var statements: [UnsafeRawPointer: OpaquePointer] = [:]
    let path: String

    /// `create` opens the file read-write, creating it when missing; otherwise the file must exist.
    init(path: String, create: Bool = true) throws(StoreError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw .cannotOpenStore("cannot open SQLite database at \(path): \(message)")
        }
        self.handle = db
        self.path = path
    }

    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    func error(_ what: String) -> StoreError {
        Self.error(
            code: sqlite3_errcode(handle), in: path, "during \(what): \(String(cString: sqlite3_errmsg(handle)))")
    }

    /// A full disk says so without the file's path, since its message reaches API clients; other failures name the
    /// file for the operator.
    private static func error(code: Int32, in path: String, _ detail: String) -> StoreError {
        if code & 0xff == SQLITE_FULL {
            return .outOfDiskSpace(
                "the disk holding the data directory is full: the write was not saved (free space and retry)")
        }
        return .storageFailure("SQLite error in \(path) \(detail)")
    }

    /// Runs one or more statements without results.
    func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(message)
            throw Self.error(code: code, in: path, "running \(sql): \(text)")
        }
    }

    /// The first column of the first row of a one-off query (schema checks, pragmas).
    func integer(_ sql: String) throws(StoreError) -> Int {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw error(sql)
        }
        defer { sqlite3_finalize(statement) }
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return Int(sqlite3_column_int64(statement, 0))
        case SQLITE_DONE: return 0
        default: throw error(sql)
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int32 { sqlite3_changes(handle) }

    /// The rowid of the last row inserted.
    var lastInsertRowid: Int64 { sqlite3_last_insert_rowid(handle) }

    func setBusyTimeout(milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    /// Has every commit record the frames now in the write-ahead log in `frames`, instead of SQLite
    /// checkpointing by itself. `frames` must outlive the connection.
    func onCommitToWAL(_ frames: WALFrameCount) {
        sqlite3_wal_hook(
            handle,
            { context, _, _, count in
                if let context { Unmanaged<WALFrameCount>.fromOpaque(context).takeUnretainedValue().value = count }
                return SQLITE_OK
            }, Unmanaged.passUnretained(frames).toOpaque())
    }

    /// A passive checkpoint of the main database.
    func checkpoint() {
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }

    /// Copies this connection's whole database into `destination`'s with SQLite's online backup, in one step (one
    /// read transaction: in WAL mode the store's writers go on meanwhile, and what is copied is one committed
    /// state).
    func backup(to destination: SQLiteConnection) throws(StoreError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.error("backup")
        }
        var code = sqlite3_backup_step(backup, -1)
        // A writer of another process may hold the lock for a moment: bounded retries, as a busy timeout would.
        var attempts = 0
        while code == SQLITE_BUSY || code == SQLITE_LOCKED, attempts < 500 {
            attempts += 1
            sqlite3_sleep(10)
            code = sqlite3_backup_step(backup, -1)
        }
        sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else {
            throw Self.error(
                code: code, in: destination.path, "during backup: \(String(cString: sqlite3_errstr(code)))")
        }
    }

    /// A cached prepared statement, reset and with bindings cleared, ready to bind.
    func statement(_ sql: StaticString) throws(StoreError) -> SQLiteStatement {
        let key = UnsafeRawPointer(sql.utf8Start)
        if let cached = statements[key] {
            return SQLiteStatement(handle: cached, connection: self)
        }
        var prepared: OpaquePointer?
        let code = sql.withUTF8Buffer { text in
            text.withMemoryRebound(to: CChar.self) { text in
                sqlite3_prepare_v3(
                    handle, text.baseAddress, Int32(text.count), UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
            }
        }
        guard code == SQLITE_OK, let prepared else { throw error("prepare \(sql)") }
        statements[key] = prepared
        return SQLiteStatement(handle: prepared, connection: self)
    }
}

/// The write-ahead log's size in frames, written by SQLite's WAL hook during a commit (by whoever holds
/// the store's core) and read by the store's thread, which may checkpoint without the core.
final class WALFrameCount: Sendable {
    private let frames = Atomic<Int32>(0)

    var value: Int32 {
        get { frames.load(ordering: .relaxed) }
        set { frames.store(newValue, ordering: .relaxed) }
    }
}

/// A prepared statement in use; `finish()` (or the end of `rows`) resets it for the next use.
struct SQLiteStatement {
    let handle: OpaquePointer
    let connection: SQLiteConnection

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ value: String) {
        sqlite3_bind_text(handle, index, value, -1, csqlite_transient())
    }

    func bind(_ index: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            // A zero-length blob still needs a non-null pointer to be a blob rather than NULL.
            _ = sqlite3_bind_blob(
                handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                csqlite_transient())
        }
    }

    /// Runs a statement that returns no rows.
    func run(_ what: StaticString) throws(StoreError) {
        defer { finish() }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw connection.error("\(what)") }
    }

    /// Steps to the next row: true for a row, false when done.
    func step(_ what: StaticString) throws(StoreError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error("\(what)")
        }
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: pointer)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The blob's bytes where SQLite keeps them: valid until the statement steps again or is reset.
    func blobBytes(_ column: Int32) -> UnsafeRawBufferPointer {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: pointer, count: count)
    }

    func finish() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}
