import BSON
import CSQLite
import DocumentStore
import Foundation

/// DocumentStore beside the raw SQLite C API doing the same work:
/// (a) one writer, awaited durable `insertOne` of ~600-byte documents (raw: document + change-log row
///     per transaction), goal ≥ 0.8× raw. Rounds alternate the two sides, each into a new file, and the
///     median of the rounds' ratios counts: on a shared machine the load changes from second to second,
///     and a round of each side back to back sees the same load;
/// (b) 64 concurrent writers, goal ≥ 2× the raw single writer (the median of three rounds);
/// (c) `findOne` by an indexed field in 100,000 documents, median latency, goal ≤ 2× raw; each key is
///     looked up by both sides in turn.
enum StoreBenchmark {
    static let benchmark = Benchmark(
        name: "store", summary: "DocumentStore insertOne (1 and 64 writers) and indexed findOne vs raw SQLite",
        run: run)

    static let singleWriterRounds = 9

    static func run() async throws {
        let root = try makeScratchDirectory("store-bench")
        defer { removeScratchDirectory(root) }

        // Both sides get the same documents, built before the clock starts: what is timed is storing them.
        let inserts = 4_000
        let documents = (0..<inserts).map(StoreBenchmarkDocuments.book)
        let rows = try documents.map(StoreBenchmarkDocuments.rawRow)
        var rounds: [(raw: Double, store: Double)] = []
        for round in 0..<singleWriterRounds {
            let raw = try RawSQLite(path: root + "/raw-insert-\(round).sqlite")
            let rawRate = try raw.insertRate(rows: rows)
            raw.close()
            let store = try await DocumentStore.open(.sqlite(directory: root + "/single-\(round)"))
            let single = store.database("bench").collection("single")
            let clock = ContinuousClock.now
            for document in documents { try await single.insertOne(document) }
            rounds.append((rawRate, Double(inserts) / seconds(since: clock)))
            await store.close()
        }
        let ratio = median(rounds.map { $0.store / $0.raw })
        let rawRate = median(rounds.map(\.raw))
        let storeRate = median(rounds.map(\.store))
        print(
            "(a) insertOne, 1 writer, median of \(singleWriterRounds) alternating rounds: \(format(storeRate)) docs/s"
                + " | raw SQLite: \(format(rawRate)) docs/s | ratio \(format(ratio, digits: 2))"
                + " (rounds \(format(rounds.map { $0.store / $0.raw }.min() ?? 0, digits: 2))–\(format(rounds.map { $0.store / $0.raw }.max() ?? 0, digits: 2)))"
                + " | goal ≥ 0.8× raw: \(ratio >= 0.8 ? "met" : "NOT met")")

        // A round is ~20,000 inserts (a few seconds); the median of three, each into a collection of its own,
        // so neither creating the collection nor a stray pause decides the figure.
        let store = try await DocumentStore.open(.sqlite(directory: root + "/store"))
        let perWriter = 300
        var concurrentRates: [Double] = []
        for round in 0..<3 {
            let concurrent = store.database("bench").collection("concurrent\(round)")
            let batches = (0..<64).map { writer in
                (0..<perWriter).map { StoreBenchmarkDocuments.book(writer * perWriter + $0) }
            }
            let clock = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for batch in batches {
                    group.addTask {
                        for document in batch { try await concurrent.insertOne(document) }
                    }
                }
                try await group.waitForAll()
            }
            concurrentRates.append(Double(64 * perWriter) / seconds(since: clock))
        }
        let concurrentRate = median(concurrentRates)
        report(
            "(b) insertOne, 64 writers, median of 3", value: concurrentRate, unit: "docs/s",
            peer: "raw SQLite, 1 writer",
            peerValue: rawRate, goal: "≥ 2× raw", met: concurrentRate >= 2 * rawRate)

        let size = 100_000
        let books = store.database("bench").collection("books")
        try await books.createIndex(["isbn": 1])
        for start in stride(from: 0, to: size, by: 1_000) {
            try await books.insertMany((start..<start + 1_000).map(StoreBenchmarkDocuments.book))
        }
        let lookups = 3_000
        var generator = SystemRandomNumberGenerator()
        let keys = (0..<lookups).map { _ in StoreBenchmarkDocuments.isbn(Int.random(in: 0..<size, using: &generator)) }
        let filters: [BSONDocument] = keys.map { ["isbn": .string($0)] }
        // Each key is looked up by both sides back to back, so a burst of someone else's work on the
        // shared machine lands on both medians alike.
        let rawLookup = try RawSQLite(path: root + "/raw-lookup.sqlite")
        defer { rawLookup.close() }
        let rawSelect = try rawLookup.lookupTable(size: size)
        defer { sqlite3_finalize(rawSelect) }
        var storeLatencies: [Double] = []
        var rawLatencies: [Double] = []
        for (key, filter) in zip(keys, filters) {
            let start = ContinuousClock.now
            guard try await books.findOne(filter) != nil else {
                throw StoreError.badValue("benchmark lookup found nothing for \(key)")
            }
            storeLatencies.append(seconds(since: start))
            rawLatencies.append(try rawLookup.lookup(rawSelect, key: key))
        }
        // What a call costs with no work at all (reads run on the caller's thread: no hop).
        var roundTrips: [Double] = []
        for _ in 0..<lookups {
            let start = ContinuousClock.now
            _ = try await store.listDatabaseNames()
            roundTrips.append(seconds(since: start))
        }
        await store.close()

        let storeMedian = median(storeLatencies) * 1e6
        let rawMedian = median(rawLatencies) * 1e6
        report(
            "(c) findOne by index, 100k docs, median", value: storeMedian, unit: "µs", peer: "raw SQLite",
            peerValue: rawMedian, goal: "≤ 2× raw", met: storeMedian <= 2 * rawMedian)
        print(
            "    of which a call with no work (listDatabaseNames), median: \(format(median(roundTrips) * 1e6)) µs"
        )
    }
}

private func seconds(since start: ContinuousClock.Instant) -> Double {
    Timing.seconds(ContinuousClock.now - start)
}

private func report(
    _ name: String, value: Double, unit: String, peer: String, peerValue: Double, goal: String, met: Bool
) {
    let line =
        "\(name): \(format(value)) \(unit) | \(peer): \(format(peerValue)) \(unit) | ratio \(format(value / peerValue, digits: 2))"
        + " | goal \(goal): \(met ? "met" : "NOT met")"
    print(line)
}

private func format(_ value: Double, digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
}

/// ~600-byte book documents, as the example app stores them.
enum StoreBenchmarkDocuments {
    static func isbn(_ i: Int) -> String { "978-\(String(format: "%010d", i))" }

    static func book(_ i: Int) -> BSONDocument {
        [
            "isbn": .string(isbn(i)), "title": .string("The Book Number \(i) Of A Long And Winding Series"),
            "authors": ["Ann Author", "Bob Writer"], "year": .int32(Int32(1900 + i % 120)),
            "tags": ["fiction", "classic", "series"], "favourites": .int32(Int32(i % 1000)),
            "description": .string(String(repeating: "A story about books, readers and their favourites. ", count: 8)),
        ]
    }

    /// What the store writes for an inserted document, for the raw peer: the `_id` key, the document's
    /// BSON, and a change event of the store's shape (and so its size) embedding the full document.
    static func rawRow(_ book: BSONDocument) throws -> RawSQLite.Row {
        let id = ObjectId()
        var document: BSONDocument = ["_id": .objectId(id)]
        for (key, value) in book { document.append(key, value) }
        let now = Date()
        let event: BSONDocument = [
            "clusterTime": .timestamp(BSONTimestamp(time: UInt32(now.timeIntervalSince1970), increment: 1)),
            "wallTime": .datetime(BSONDate(millisecondsSinceEpoch: Int64(now.timeIntervalSince1970 * 1000))),
            "operationType": "insert", "ns": ["db": "bench", "coll": "single"], "documentKey": ["_id": .objectId(id)],
            "fullDocument": .document(document),
        ]
        return RawSQLite.Row(
            key: withUnsafeBytes(of: id.bytes) { Array($0) }, body: try document.bsonBytes, event: try event.bsonBytes)
    }
}

/// The raw SQLite C API doing the same work as the store, as the baseline.
final class RawSQLite {
    let db: OpaquePointer

    init(path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK, let handle else {
            throw StoreError.badValue("cannot open \(path)")
        }
        db = handle
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
    }

    func close() { sqlite3_close_v2(db) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw StoreError.badValue("raw SQLite: \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw StoreError.badValue("raw SQLite: \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement
    }

    struct Row {
        var key: [UInt8]
        var body: [UInt8]
        var event: [UInt8]
    }

    /// Per transaction: the document row and its change-log row, committed.
    func insertRate(rows: [Row]) throws -> Double {
        try execute(
            """
            CREATE TABLE documents(id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, body BLOB NOT NULL);
            CREATE TABLE changes(seq INTEGER PRIMARY KEY, wall_time INTEGER NOT NULL, event BLOB NOT NULL);
            """)
        let document = try prepare("INSERT INTO documents(key, body) VALUES(?, ?)")
        let change = try prepare("INSERT INTO changes(seq, wall_time, event) VALUES(?, ?, ?)")
        let begin = try prepare("BEGIN IMMEDIATE")
        let commit = try prepare("COMMIT")
        defer { [document, change, begin, commit].forEach { sqlite3_finalize($0) } }
        let start = ContinuousClock.now
        for (i, row) in rows.enumerated() {
            sqlite3_step(begin)
            sqlite3_reset(begin)
            sqlite3_bind_blob(document, 1, row.key, Int32(row.key.count), csqlite_transient())
            sqlite3_bind_blob(document, 2, row.body, Int32(row.body.count), csqlite_transient())
            guard sqlite3_step(document) == SQLITE_DONE else { throw StoreError.badValue("raw insert failed") }
            sqlite3_reset(document)
            sqlite3_bind_int64(change, 1, Int64(i + 1))
            sqlite3_bind_int64(change, 2, Int64(Date().timeIntervalSince1970 * 1000))
            sqlite3_bind_blob(change, 3, row.event, Int32(row.event.count), csqlite_transient())
            guard sqlite3_step(change) == SQLITE_DONE else { throw StoreError.badValue("raw change insert failed") }
            sqlite3_reset(change)
            guard sqlite3_step(commit) == SQLITE_DONE else { throw StoreError.badValue("raw commit failed") }
            sqlite3_reset(commit)
        }
        return Double(rows.count) / seconds(since: start)
    }

    /// A table with an indexed isbn column, holding the same documents; returns the lookup statement,
    /// which reads the body of the matching row.
    func lookupTable(size: Int) throws -> OpaquePointer {
        try execute("CREATE TABLE books(id INTEGER PRIMARY KEY, isbn TEXT NOT NULL, body BLOB NOT NULL)")
        let insert = try prepare("INSERT INTO books(isbn, body) VALUES(?, ?)")
        try execute("BEGIN")
        for i in 0..<size {
            let body = try StoreBenchmarkDocuments.rawRow(StoreBenchmarkDocuments.book(i)).body
            sqlite3_bind_text(insert, 1, StoreBenchmarkDocuments.isbn(i), -1, csqlite_transient())
            sqlite3_bind_blob(insert, 2, body, Int32(body.count), csqlite_transient())
            sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        try execute("COMMIT; CREATE INDEX books_isbn ON books(isbn)")
        sqlite3_finalize(insert)
        return try prepare("SELECT body FROM books WHERE isbn = ?")
    }

    /// One lookup with `lookupTable`'s statement: its latency in seconds.
    func lookup(_ select: OpaquePointer, key: String) throws -> Double {
        let start = ContinuousClock.now
        sqlite3_bind_text(select, 1, key, -1, csqlite_transient())
        guard sqlite3_step(select) == SQLITE_ROW, sqlite3_column_bytes(select, 0) > 0 else {
            throw StoreError.badValue("raw lookup found nothing")
        }
        sqlite3_reset(select)
        return seconds(since: start)
    }
}
