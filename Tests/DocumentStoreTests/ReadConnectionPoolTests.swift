import BSON
import Synchronization
import Testing

@testable import DocumentStore

/// Reads that run beside the writer (on their caller's thread with SQLite) still see every write
/// acknowledged before they started, and never pair data with a catalog it does not belong to.
@Suite struct ReadConnectionPoolTests {
    @Test(arguments: EngineKind.allCases) func eachTaskReadsItsOwnAcknowledgedWrites(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.createIndex(["owner": 1, "n": 1])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<16 {
                    group.addTask {
                        let owner = BSON.string("t\(task)")
                        for n in 0..<15 {
                            let key: BSONDocument = ["owner": owner, "n": .int32(Int32(n))]
                            let id = try await c.insertOne(["owner": owner, "n": .int32(Int32(n)), "v": 0]).insertedId
                            #expect(try await c.findOne(key)?["_id"] == id)
                            try await c.updateOne(["_id": id], ["$set": ["v": 1]])
                            #expect(try await c.findOne(["_id": id])?["v"] == 1)
                            if n % 3 == 0 {
                                try await c.deleteOne(["_id": id])
                                #expect(try await c.findOne(key) == nil)
                            }
                        }
                        #expect(try await c.countDocuments(["owner": owner]) == 10)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await c.countDocuments() == 16 * 10)
        }
    }

    @Test(arguments: EngineKind.allCases) func readsSeeWritesAcknowledgedToOtherTasks(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.createIndex(["seq": 1])
            let acknowledged = Acknowledged()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for i in 0..<50 {
                            let seq = Int32(writer * 1000 + i)
                            try await c.insertOne(["seq": .int32(seq)])
                            acknowledged.values.withLock { $0.append(seq) }
                        }
                    }
                }
                for _ in 0..<4 {
                    group.addTask { () async throws in
                        for _ in 0..<50 {
                            // Whatever was acknowledged before the read starts must be found.
                            let known = acknowledged.values.withLock { $0 }
                            guard let newest = known.last else {
                                await Task.yield()
                                continue
                            }
                            #expect(try await c.findOne(["seq": .int32(newest)]) != nil)
                            #expect(try await c.countDocuments() >= known.count)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await c.countDocuments() == 200)
        }
    }

    @Test(arguments: EngineKind.allCases) func readsRacingIndexChangesUseTheMatchingCatalog(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.insertMany((0..<40).map { ["k": .int32(Int32($0))] })
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // An index read through a catalog that predates its drop would find nothing.
                    for _ in 0..<60 {
                        try await c.createIndex(["k": 1])
                        try await c.dropIndex("k_1")
                    }
                }
                for reader in 0..<3 {
                    group.addTask {
                        for i in 0..<400 {
                            let k = Int32((reader * 400 + i) % 40)
                            let found = try await c.find(["k": .int32(k)]).toArray()
                            #expect(found.map { $0["k"] } == [.int32(k)])
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// A find of one statement reads without a transaction of its own; one of several (an `$in` over
    /// index ranges or `_id`s) must still see a single commit throughout.
    @Test(arguments: EngineKind.allCases) func findsOfSeveralStatementsSeeOneCommit(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.createIndex(["k": 1])
            try await c.insertOne(["_id": 1, "k": 0])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // The document moves between the ranges `k: 0` and `k: 1` and between the ids 1 and 2,
                    // each move one commit: a read that took the ranges or ids from different commits
                    // could miss it or find it twice.
                    for i in 0..<300 {
                        try await c.updateOne(["k": .int32(Int32(i % 2))], ["$set": ["k": .int32(Int32((i + 1) % 2))]])
                        let (from, to) = i % 2 == 0 ? (1, 2) : (2, 1)
                        let moved = try await c.bulkWrite([
                            .deleteOne(filter: ["_id": .int32(Int32(from))]),
                            .insertOne(["_id": .int32(Int32(to)), "k": .int32(Int32((i + 1) % 2))]),
                        ])
                        #expect(moved.deletedCount == 1 && moved.insertedCount == 1)
                    }
                }
                for _ in 0..<2 {
                    group.addTask { () async throws in
                        for _ in 0..<600 {
                            #expect(try await c.find(["k": ["$in": [0, 1]]]).toArray().count == 1)
                            #expect(try await c.find(["_id": ["$in": [1, 2]]]).toArray().count == 1)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test(arguments: EngineKind.allCases) func aClosedStoreRefusesReads(kind: EngineKind) async throws {
        let directory = TemporaryDirectory()
        let store = try await DocumentStore.open(try await configuration(kind, directory: directory))
        let c = store.database("app").collection("c")
        try await c.insertOne(["_id": 1])
        #expect(try await c.findOne(["_id": 1]) != nil)
        await store.close()
        await expectStoreError(17_003) { _ = try await c.findOne(["_id": 1]) }
        await expectStoreError(17_003) { _ = try await store.listDatabaseNames() }
    }
}

/// Sequence numbers whose inserts were acknowledged, in order.
private final class Acknowledged: Sendable {
    let values = Mutex<[Int32]>([])
}
