import BSON
import CLibPQ
import DocumentStore
import Foundation
import TestSupport

/// The PostgreSQL engine beside a raw libpq loop doing the same work on the same server (a throwaway one started
/// here, `fsync=off` as in the tests): one writer, awaited `insertOne` of ~600-byte documents, where the raw loop
/// commits one transaction per document with its document row and its change-log row (prepared statements, binary
/// parameters, the same tables and keys). Goal ≥ 0.7× raw. Rounds alternate the two sides, each into a new
/// database, and the median of the rounds' ratios counts.
enum PostgreSQLStoreBenchmark {
    static let benchmark = Benchmark(
        name: "store-postgresql", summary: "DocumentStore insertOne on PostgreSQL vs a raw libpq loop", run: run)

    static let rounds = 5

    static func run() async throws {
        // Stopped when the process exits.
        let server = try await offPool { try PostgreSQLServer.shared() }
        let inserts = 2_000
        let documents = (0..<inserts).map(StoreBenchmarkDocuments.book)
        let rows = try documents.map(StoreBenchmarkDocuments.rawRow)
        var measured: [(raw: Double, store: Double)] = []
        for round in 0..<rounds {
            let rawURL = try server.database("raw_\(round)")
            let rawRate = try await offPool { try RawLibPQ(url: rawURL).insertRate(rows: rows) }
            let store = try await DocumentStore.open(.postgresql(url: try server.database("store_\(round)")))
            let single = store.database("bench").collection("single")
            let clock = ContinuousClock.now
            for document in documents { try await single.insertOne(document) }
            measured.append((rawRate, Double(inserts) / Timing.seconds(ContinuousClock.now - clock)))
            await store.close()
        }
        let ratios = measured.map { $0.store / $0.raw }
        let ratio = median(ratios)
        print(
            "(a) insertOne on PostgreSQL, 1 writer, median of \(rounds) alternating rounds:"
                + " \(format(median(measured.map(\.store)))) docs/s"
                + " | raw libpq loop: \(format(median(measured.map(\.raw)))) docs/s | ratio \(format(ratio, digits: 2))"
                + " (rounds \(format(ratios.min() ?? 0, digits: 2))–\(format(ratios.max() ?? 0, digits: 2)))"
                + " | goal ≥ 0.7× raw: \(ratio >= 0.7 ? "met" : "NOT met")")
    }

    private static func format(_ value: Double, digits: Int = 1) -> String {
        String(format: "%.\(digits)f", value)
    }
}

/// libpq by hand: the rows the store writes for an insert, one transaction each.
private final class RawLibPQ {
    private let connection: OpaquePointer?

    init(url: String) throws {
        connection = PQconnectdb(url)
        guard PQstatus(connection) == CONNECTION_OK else {
            throw StoreError.badValue("raw libpq: \(String(cString: PQerrorMessage(connection)))")
        }
        try execute(
            """
            CREATE TABLE documents(
                id bigserial PRIMARY KEY, collection bigint NOT NULL, key bytea NOT NULL, body bytea NOT NULL,
                UNIQUE (collection, key));
            CREATE TABLE changes(seq bigint PRIMARY KEY, wall_time bigint NOT NULL, event bytea NOT NULL);
            """)
        try prepare("document", "INSERT INTO documents(collection, key, body) VALUES($1, $2, $3)", [20, 17, 17])
        try prepare("change", "INSERT INTO changes(seq, wall_time, event) VALUES($1, $2, $3)", [20, 20, 17])
    }

    deinit { PQfinish(connection) }

    private func execute(_ sql: String) throws {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw StoreError.badValue("raw libpq: \(String(cString: PQresultErrorMessage(result)))")
        }
    }

    private func prepare(_ name: String, _ sql: String, _ types: [Oid]) throws {
        let result = PQprepare(connection, name, sql, Int32(types.count), types)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw StoreError.badValue("raw libpq: \(String(cString: PQresultErrorMessage(result)))")
        }
    }

    /// Runs a prepared statement with binary parameters.
    private func run(_ name: String, _ parameters: [[UInt8]]) throws {
        let lengths = parameters.map { Int32($0.count) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        let result = withPointers(parameters, [], 0) { values in
            PQexecPrepared(connection, name, Int32(parameters.count), values, lengths, formats, 1)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw StoreError.badValue("raw libpq: \(String(cString: PQresultErrorMessage(result)))")
        }
    }

    /// The parameters' addresses, each alive during `body`.
    private func withPointers<T>(
        _ parameters: [[UInt8]], _ pointers: [UnsafePointer<CChar>?], _ index: Int,
        _ body: ([UnsafePointer<CChar>?]) -> T
    ) -> T {
        guard index < parameters.count else { return body(pointers) }
        return parameters[index].withUnsafeBufferPointer { bytes in
            withPointers(
                parameters, pointers + [UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)],
                index + 1, body)
        }
    }

    private static func int8(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    func insertRate(rows: [RawSQLite.Row]) throws -> Double {
        let collection = Self.int8(1)
        let start = ContinuousClock.now
        for (sequence, row) in rows.enumerated() {
            try execute("BEGIN")
            try run("document", [collection, row.key, row.body])
            try run(
                "change",
                [Self.int8(Int64(sequence + 1)), Self.int8(Int64(Date().timeIntervalSince1970 * 1000)), row.event])
            try execute("COMMIT")
        }
        return Double(rows.count) / Timing.seconds(ContinuousClock.now - start)
    }
}
