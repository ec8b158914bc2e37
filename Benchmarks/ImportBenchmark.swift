import BSON
import CSQLite
import DocumentStore
import Foundation
import Switchyard

/// `switchyard data import` of 100,000 ~600-byte book documents (one `<db>.<collection>.json` file of
/// canonical Extended JSON, one document per line, ~90 MB, written before the clock) into a fresh SQLite
/// store (not change-logged, as an import is by default), beside raw SQLite inserting the same documents,
/// already encoded as BSON, into a table of the store's shape (rowid, unique collection + key, body) in one
/// transaction. The import's figure includes reading and parsing the file; the store alone (the parsed
/// documents handed to `replaceContents`) is printed beside it. Goal: import ≥ 0.5× raw. Rounds alternate
/// the two sides and keep each side's best (the machine is shared).
enum ImportBenchmark {
    static let benchmark = Benchmark(
        name: "import", summary: "data import of 100,000 documents (file → store) vs raw SQLite inserts", run: run)

    static let documentCount = 100_000
    static let rounds = 3

    static func run() async throws {
        let root = try makeScratchDirectory("import-bench")
        defer { removeScratchDirectory(root) }

        let documents = (0..<documentCount).map { i in
            var document: BSONDocument = ["_id": .objectId(ObjectId())]
            for (key, value) in StoreBenchmarkDocuments.book(i) { document.append(key, value) }
            return document
        }
        var file: [UInt8] = []
        for document in documents {
            document.appendExtendedJSON(to: &file, mode: .canonical)
            file.append(UInt8(ascii: "\n"))
        }
        let seed = root + "/seed"
        try FileManager.default.createDirectory(atPath: seed, withIntermediateDirectories: true)
        try Data(file).write(to: URL(fileURLWithPath: seed + "/bench.books.json"))
        let rows = try documents.map { document in
            guard case .objectId(let id) = document["_id"] else { throw BenchmarkFailure("document without _id") }
            return (key: withUnsafeBytes(of: id.bytes) { Array($0) }, body: try document.bsonBytes)
        }

        var best = (raw: 0.0, fromFile: 0.0, store: 0.0)
        for round in 0..<rounds {
            let raw = try RawSQLite(path: "\(root)/raw-\(round).sqlite")
            best.raw = max(best.raw, try raw.bulkInsertRate(rows: rows))
            raw.close()

            let store = try await DocumentStore.open(.sqlite(directory: "\(root)/import-\(round)"))
            let start = ContinuousClock.now
            let summary = try await DataImport.import(from: seed, into: store)
            best.fromFile = max(best.fromFile, Double(summary.documents) / Timing.seconds(ContinuousClock.now - start))
            guard try await store.database("bench").collection("books").countDocuments() == documentCount else {
                throw BenchmarkFailure("the import stored the wrong number of documents")
            }
            await store.close()

            let direct = try await DocumentStore.open(.sqlite(directory: "\(root)/direct-\(round)"))
            let clock = ContinuousClock.now
            let stored = try await direct.database("bench").collection("books").replaceContents(
                documents, indexes: [], changeLogged: false)
            best.store = max(best.store, Double(stored) / Timing.seconds(ContinuousClock.now - clock))
            await direct.close()
        }
        func rate(_ value: Double) -> String { String(format: "%.0f docs/s", value) }
        let ratio = best.fromFile / best.raw
        print(
            "data import, \(documentCount) docs (\(String(format: "%.1f", Double(file.count) / 1_000_000)) MB file → store): "
                + "\(rate(best.fromFile)) | raw SQLite, one transaction: \(rate(best.raw)) | ratio \(String(format: "%.2f", ratio))"
                + " | goal ≥ 0.5× raw: \(ratio >= 0.5 ? "met" : "NOT met")")
        print(
            "    of which the store alone (parsed documents → replaceContents): \(rate(best.store)), "
                + "ratio \(String(format: "%.2f", best.store / best.raw))")
    }
}

extension RawSQLite {
    /// The store's documents table, every row inserted in one transaction, committed.
    func bulkInsertRate(rows: [(key: [UInt8], body: [UInt8])]) throws -> Double {
        try execute(
            """
            CREATE TABLE documents(
                id INTEGER PRIMARY KEY, collection INTEGER NOT NULL, key BLOB NOT NULL, body BLOB NOT NULL,
                UNIQUE(collection, key));
            """)
        let insert = try prepare("INSERT INTO documents(collection, key, body) VALUES(1, ?, ?)")
        defer { sqlite3_finalize(insert) }
        let start = ContinuousClock.now
        try execute("BEGIN IMMEDIATE")
        for row in rows {
            sqlite3_bind_blob(insert, 1, row.key, Int32(row.key.count), csqlite_transient())
            sqlite3_bind_blob(insert, 2, row.body, Int32(row.body.count), csqlite_transient())
            guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchmarkFailure("raw insert failed") }
            sqlite3_reset(insert)
        }
        try execute("COMMIT")
        return Double(rows.count) / Timing.seconds(ContinuousClock.now - start)
    }
}
