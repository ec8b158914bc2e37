import CLibPQ
import Foundation

/// A value sent to PostgreSQL as a binary parameter.
enum PostgreSQLValue {
    case int64(Int64)
    case bytes([UInt8])
    case text(String)

    /// The parameter's type (`pg_type` OIDs), given when the statement is prepared.
    fileprivate var type: Oid {
        switch self {
        case .int64: 20  // int8
        case .bytes: 17  // bytea
        case .text: 25  // text
        }
    }
}

/// One libpq connection with a prepared-statement cache. Every statement is prepared once and then run with
/// binary parameters and binary results (no text formatting or escaping of BSON bytes on either side). Used from
/// one thread at a time (the store's).
final class PostgreSQLConnection {
    private let handle: OpaquePointer
    /// Statement names by the address of the SQL literal: cheaper than hashing its text on every use.
    private var prepared: [UnsafeRawPointer: String] = [:]
    /// Where the connection goes, without its password, for errors.
    let location: PostgreSQLLocation

    /// What `pg_stat_activity` shows of the store's connection.
    static let applicationName = "switchyard-store"

    init(_ location: PostgreSQLLocation) throws(StoreError) {
        self.location = location
        guard let handle = location.connect(applicationName: Self.applicationName) else {
            throw .cannotOpenStore("cannot connect to PostgreSQL at \(location): out of memory")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.message(PQerrorMessage(handle))
            PQfinish(handle)
            throw .cannotOpenStore("cannot connect to PostgreSQL at \(location): \(message)")
        }
        self.handle = handle
    }

    func close() { PQfinish(handle) }

    /// Whether the server is still reachable; after a lost connection, one attempt to connect again (its prepared
    /// statements are gone with the old session).
    private func reconnectIfLost() throws(StoreError) {
        guard PQstatus(handle) != CONNECTION_OK else { return }
        prepared.removeAll()
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            throw .storageFailure(
                "the connection to PostgreSQL at \(location) is lost: \(Self.message(PQerrorMessage(handle)))")
        }
    }

    /// Runs `statement` on a live connection. libpq learns that the server went away (restarted, or the backend
    /// was terminated) only from the next statement, which then fails; when that statement began no transaction's
    /// work (it is a read outside a transaction or a `BEGIN`: the store writes only in transactions), nothing is
    /// lost with the old session, so it runs once more on a new one. Inside a transaction the failure stands: the
    /// transaction went with the connection.
    private func onLiveConnection<T>(_ statement: () throws(StoreError) -> T) throws(StoreError) -> T {
        try reconnectIfLost()
        let idle = PQtransactionStatus(handle) == PQTRANS_IDLE
        do {
            return try statement()
        } catch {
            guard idle, PQstatus(handle) != CONNECTION_OK else { throw error }
            try reconnectIfLost()
            return try statement()
        }
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A failed result's error: a full disk (SQLSTATE 53100) says so as SQLite's does; other failures name the
    /// statement for the operator.
    private func error(_ result: OpaquePointer?, running sql: String) -> StoreError {
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        if state == "53100" {
            return .outOfDiskSpace(
                "the disk holding the PostgreSQL database is full: the write was not saved (free space and retry)")
        }
        let text = result.map { Self.message(PQresultErrorMessage($0)) } ?? Self.message(PQerrorMessage(handle))
        if PQstatus(handle) != CONNECTION_OK {
            let outcome =
                sql == "COMMIT" ? "whether the transaction was committed is unknown" : "the statement was not run"
            return .storageFailure(
                "the connection to PostgreSQL at \(location) is lost running \(sql) (\(outcome)): \(text)")
        }
        return .storageFailure("PostgreSQL error at \(location) running \(sql): \(text)")
    }

    /// Runs one or more statements without parameters or results (schema, transaction control); returns the last
    /// one's command tag (`COMMIT`, or `ROLLBACK` for a COMMIT of a failed transaction).
    @discardableResult
    func execute(_ sql: String) throws(StoreError) -> String {
        try onLiveConnection { () throws(StoreError) in
            let result = PQexec(handle, sql)
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw error(result, running: sql) }
            return String(cString: PQcmdStatus(result))
        }
    }

    /// Runs a prepared statement and returns all its rows.
    func query(_ sql: StaticString, _ parameters: [PostgreSQLValue] = []) throws(StoreError) -> PostgreSQLRows {
        try onLiveConnection { () throws(StoreError) in try queryOnce(sql, parameters) }
    }

    private func queryOnce(_ sql: StaticString, _ parameters: [PostgreSQLValue]) throws(StoreError) -> PostgreSQLRows {
        let name = try statement(sql, parameters)
        let result = Self.withParameters(parameters) { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK, let result else {
            defer { PQclear(result) }
            throw error(result, running: "\(sql)")
        }
        return PostgreSQLRows(result)
    }

    /// Runs a prepared statement and hands its rows to `visit` one at a time as they arrive (libpq's single-row
    /// mode), so a scan holds one row in memory, not the whole result; stops reading when `visit` returns false.
    func stream(
        _ sql: StaticString, _ parameters: [PostgreSQLValue], _ visit: (PostgreSQLRows) throws(StoreError) -> Bool
    ) throws(StoreError) {
        try reconnectIfLost()
        let name = try statement(sql, parameters)
        let sent = Self.withParameters(parameters) { values, lengths, formats in
            PQsendQueryPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
        }
        guard sent == 1 else { throw error(nil, running: "\(sql)") }
        PQsetSingleRowMode(handle)
        // The rest of the results are read (and dropped) whatever happens: the connection takes no other
        // statement until they are.
        var failure: StoreError?
        var visiting = true
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            if status == PGRES_SINGLE_TUPLE {
                guard visiting else { continue }
                do {
                    visiting = try visit(PostgreSQLRows(borrowing: result))
                } catch {
                    failure = error
                    visiting = false
                }
            } else if status != PGRES_TUPLES_OK && failure == nil {
                failure = error(result, running: "\(sql)")
            }
        }
        if let failure { throw failure }
    }

    /// The prepared statement's name, preparing it on first use.
    private func statement(_ sql: StaticString, _ parameters: [PostgreSQLValue]) throws(StoreError) -> String {
        let key = UnsafeRawPointer(sql.utf8Start)
        if let name = prepared[key] { return name }
        let name = "s\(prepared.count)"
        let types = parameters.map(\.type)
        let result = PQprepare(handle, name, "\(sql)", Int32(types.count), types)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw error(result, running: "\(sql)") }
        prepared[key] = name
        return name
    }

    /// Lays the parameters out in one buffer, in libpq's binary formats (integers big-endian), and passes libpq's
    /// three arrays to `body`.
    private static func withParameters<T>(
        _ parameters: [PostgreSQLValue],
        _ body: (
            UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?
        ) -> T
    ) -> T {
        // One byte more than the values: an empty value still has an address (a null pointer is SQL NULL).
        var buffer: [UInt8] = [0]
        var offsets: [Int] = []
        var lengths: [Int32] = []
        for parameter in parameters {
            offsets.append(buffer.count)
            switch parameter {
            case .int64(let value):
                withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
                lengths.append(8)
            case .bytes(let bytes):
                buffer.append(contentsOf: bytes)
                lengths.append(Int32(bytes.count))
            case .text(let text):
                let utf8 = text.utf8
                buffer.append(contentsOf: utf8)
                lengths.append(Int32(utf8.count))
            }
        }
        let formats = [Int32](repeating: 1, count: parameters.count)
        return buffer.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress!)
            let values: [UnsafePointer<CChar>?] = offsets.map {
                base.advanced(by: $0).assumingMemoryBound(to: CChar.self)
            }
            return values.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }
}

/// The rows of a result in binary format, read by row and column. Owns its libpq result, cleared on deinit;
/// a borrowed one (a streamed row) is cleared by its connection.
final class PostgreSQLRows {
    private let result: OpaquePointer
    private let owned: Bool

    fileprivate init(_ result: OpaquePointer) {
        self.result = result
        owned = true
    }

    fileprivate init(borrowing result: OpaquePointer) {
        self.result = result
        owned = false
    }

    deinit { if owned { PQclear(result) } }

    var count: Int { Int(PQntuples(result)) }

    /// Rows changed by an INSERT, UPDATE or DELETE.
    var affected: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) == 1 }

    /// An int8 column (binary: 8 bytes, big-endian).
    func int64(_ row: Int, _ column: Int) -> Int64 {
        guard let value = PQgetvalue(result, Int32(row), Int32(column)),
            PQgetlength(result, Int32(row), Int32(column)) == 8
        else { return 0 }
        return Int64(bigEndian: UnsafeRawPointer(value).loadUnaligned(as: Int64.self))
    }

    /// The column's bytes, valid while the result lives.
    func bytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        guard let value = PQgetvalue(result, Int32(row), Int32(column)), length > 0 else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: value, count: length)
    }

    func blob(_ row: Int, _ column: Int) -> [UInt8] { [UInt8](bytes(row, column)) }

    func text(_ row: Int, _ column: Int) -> String { String(decoding: bytes(row, column), as: UTF8.self) }
}
