import BSON
import Foundation
import Testing

@testable import DocumentStore

/// Group commit: concurrent writers share transactions, each write succeeds or fails on its own, and
/// every acknowledged write has exactly one change event.
@Suite struct StoreWorkerTests {
    @Test(arguments: EngineKind.allCases) func sixtyFourConcurrentWritersAreBatchedAndAllLogged(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.createIndex(["slot": 1], unique: true)
            let committedBefore = store.worker.transactionsCommitted.load(ordering: .relaxed)
            let perWriter = 20
            // Every writer also races for the same unique slot: exactly one may win.
            let winners = try await withThrowingTaskGroup(of: Int.self) { group in
                for writer in 0..<64 {
                    group.addTask {
                        var won = 0
                        for i in 0..<perWriter {
                            try await c.insertOne([
                                "_id": .string("w\(writer)-\(i)"), "slot": .string("w\(writer)-\(i)"),
                            ])
                        }
                        do {
                            try await c.insertOne(["_id": .string("race-\(writer)"), "slot": "shared"])
                            won = 1
                        } catch let error as StoreError where error.code == .duplicateKey {}
                        return won
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(winners == 1)
            let writes = 64 * (perWriter + 1)
            #expect(try await c.countDocuments() == 64 * perWriter + 1)
            let committed = store.worker.transactionsCommitted.load(ordering: .relaxed) - committedBefore
            #expect(committed < writes, "expected batched commits, got \(committed) transactions for \(writes) writes")

            let records = try await store.worker.read { core throws(StoreError) in
                try core.engine.changes(after: 0, limit: 10_000)
            }
            let inserts = try records.map { try DocumentEncoding.decode($0.event) }.filter {
                $0["operationType"] == "insert"
            }
            #expect(inserts.count == 64 * perWriter + 1)
            #expect(Set(inserts.compactMap { $0["documentKey"]?.documentValue?["_id"] }).count == inserts.count)
            let sequences = records.map(\.sequence)
            #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 + 1 })
        }
    }

    @Test(arguments: EngineKind.allCases) func aFailingWriteRollsBackOnlyItself(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.insertMany([["_id": 10, "k": 1], ["_id": 11, "k": 1]])
            let stream = try await c.watch()
            // Building a unique index writes entries before it meets the duplicate; the rollback of its
            // savepoint must not take the concurrent inserts with it.
            let failing = Task { try await c.createIndex(["k": 1], unique: true) }
            async let first: Void = { _ = try await c.insertOne(["_id": 1]) }()
            async let second: Void = { _ = try await c.insertMany([["_id": 2], ["_id": 3]]) }()
            try await first
            try await second
            await #expect(throws: StoreError.self) { try await failing.value }
            #expect(try await c.countDocuments() == 5)
            #expect(try await c.listIndexes().count == 1)
            let events = try await next(3, from: stream)
            #expect(Set(events.compactMap { $0.documentKey?["_id"] }) == [1, 2, 3])
        }
    }

    /// A lone writer commits on its own thread, where SQLite's automatic checkpoint does not run: the
    /// store's thread checkpoints instead, with the writer waiting as under the automatic checkpoint, so
    /// the write-ahead log starts over at about its size (1,000 pages, ~4 MB) rather than growing with
    /// every commit (2,500 commits of ~3 pages would make it ~30 MB) or to the ~10 MB bound that
    /// checkpoints beside the writer would let it reach.
    @Test func aLoneWritersCommitsKeepTheWriteAheadLogBounded() async throws {
        let directory = TemporaryDirectory()
        let store = try await DocumentStore.open(try await configuration(.sqlite, directory: directory))
        let c = store.database("app").collection("c")
        for i in 0..<2_500 { try await c.insertOne(["i": .int32(Int32(i)), "text": "a lone writer's document"]) }
        #expect(try await c.countDocuments() == 2_500)
        // Measured while open (closing checkpoints and removes the log); the file never shrinks, so its
        // size is the most it ever held.
        let wal = try FileManager.default.attributesOfItem(atPath: directory.path + "/data/store.sqlite-wal")
        await store.close()
        let size = (wal[.size] as? NSNumber)?.intValue ?? .max
        #expect(size < 6 << 20, "the write-ahead log grew to \(size) bytes")
    }
}
