import BSON
import DocumentStore
import Foundation
import Testing

@testable import Switchyard

/// A capped log keeps its newest documents by time, then `_id`, whatever order they were written in and
/// whoever else wrote to it.
@Suite struct CappedLogTests {
    static func entry(_ seconds: Int, id: ObjectId = ObjectId()) -> BSONDocument {
        [
            "_id": .objectId(id), "time": .datetime(BSONDate(millisecondsSinceEpoch: Int64(seconds) * 1000)),
            "n": .int64(Int64(seconds)),
        ]
    }

    /// `entry(seconds)`, appended as the invocation log appends: encoded.
    static func append(_ seconds: Int, to log: CappedLog) async {
        let time = BSONDate(millisecondsSinceEpoch: Int64(seconds) * 1000)
        let document = EncodedDocument { writer in
            writer.append("time", time)
            writer.append("n", Int64(seconds))
        }
        await log.append(document, time: time)
    }

    static func kept(_ collection: DocumentCollection) async throws -> [Int64] {
        try await collection.find().toArray().compactMap { $0["n"]?.int64Value }.sorted()
    }

    @Test func keepsTheNewestByTimeWhenWrittenOutOfOrder() async throws {
        let store = try await DocumentStore.open(StoreConfiguration(engine: .memory))
        let collection = store.database("local").collection("log")
        let log = CappedLog(collection: collection, timeField: "time", retention: 5, pruneInterval: 4)
        try await log.prepare()
        // Times 1…40, each block of four written newest first, as runs that finish out of order are.
        for block in stride(from: 1, through: 40, by: 4) {
            for seconds in (block..<block + 4).reversed() { try await log.insert(Self.entry(seconds)) }
        }
        #expect(try await Self.kept(collection) == Array(36...40))
        // A late document older than everything kept goes at the next prune.
        for seconds in [2, 41, 42, 43] { try await log.insert(Self.entry(seconds)) }
        #expect(try await Self.kept(collection) == Array(39...43))
        await store.close()
    }

    @Test func documentsWrittenBySomeoneElseArePrunedToo() async throws {
        let store = try await DocumentStore.open(StoreConfiguration(engine: .memory))
        let collection = store.database("local").collection("log")
        let log = CappedLog(collection: collection, timeField: "time", retention: 3, pruneInterval: 2)
        for seconds in 1...4 { try await log.insert(Self.entry(seconds)) }
        #expect(try await Self.kept(collection) == [2, 3, 4])
        // Written around the log: an older document, then one whose `_id` is no ObjectId.
        try await collection.insertOne(Self.entry(0))
        for seconds in 5...6 { try await log.insert(Self.entry(seconds)) }
        #expect(try await Self.kept(collection) == [4, 5, 6])
        try await collection.insertOne([
            "_id": "by-hand", "time": .datetime(BSONDate(millisecondsSinceEpoch: 7000)), "n": 7,
        ])
        for seconds in 8...9 { try await log.insert(Self.entry(seconds)) }
        #expect(try await Self.kept(collection) == [7, 8, 9])
        // Someone deleting documents leaves the log short, not wrong.
        try await collection.deleteMany(["n": 8])
        for seconds in 10...11 { try await log.insert(Self.entry(seconds)) }
        #expect(try await Self.kept(collection) == [9, 10, 11])
        await store.close()
    }

    @Test func appendsFromManyTasksAreEachWrittenOnceAndTheBacklogStaysBounded() async throws {
        let store = try await DocumentStore.open(StoreConfiguration(engine: .memory))
        let collection = store.database("local").collection("log")
        let log = CappedLog(
            collection: collection, timeField: "time", retention: 10_000, pruneInterval: 100, maximumBacklog: 8)
        try await log.prepare()
        let count = 600
        await withTaskGroup(of: Void.self) { group in
            for seconds in 1...count {
                group.addTask { await Self.append(seconds, to: log) }
            }
        }
        // Each append returned with at most `maximumBacklog` documents (its own among them) unwritten.
        let unwritten = count - (try await collection.countDocuments())
        #expect(unwritten <= 8)
        await log.flush()
        #expect(try await Self.kept(collection) == (1...count).map(Int64.init))
        await store.close()
    }

    /// The drain pauses between batches for an hour here: a flush, and appends over the backlog, must not wait
    /// for that pause (each would hang until the suite's time limit if they did).
    @Test(.timeLimit(.minutes(1))) func flushesAndFullBacklogsCutTheDrainsPauseShort() async throws {
        let store = try await DocumentStore.open(StoreConfiguration(engine: .memory))
        let collection = store.database("local").collection("log")
        let log = CappedLog(
            collection: collection, timeField: "time", retention: 10_000, maximumBacklog: 4,
            batchInterval: .seconds(3600))
        try await log.prepare()
        for round in 0..<3 {
            await Self.append(round, to: log)
            await log.flush()
            #expect(try await collection.countDocuments() == round + 1)
        }
        // Far past the backlog, appended one after another while the drain pauses after each batch.
        for seconds in 3..<40 { await Self.append(seconds, to: log) }
        #expect(try await collection.countDocuments() >= 40 - 4)
        await log.flush()
        #expect(try await Self.kept(collection) == (0..<40).map(Int64.init))
        await store.close()
    }

    @Test func appendedDocumentsArePrunedLikeInsertedOnes() async throws {
        let store = try await DocumentStore.open(StoreConfiguration(engine: .memory))
        let collection = store.database("local").collection("log")
        let log = CappedLog(collection: collection, timeField: "time", retention: 5, pruneInterval: 3)
        try await log.prepare()
        for seconds in 1...40 {
            await Self.append(seconds, to: log)
            if seconds.isMultiple(of: 7) { await log.flush() }
        }
        await log.flush()
        let kept = try await Self.kept(collection)
        #expect(kept.count <= 5 + 3)
        #expect(kept.suffix(5) == [36, 37, 38, 39, 40])
        await store.close()
    }

    @Test func preparingDropsTheIndexEarlierVersionsMadeAndKeepsOthers() async throws {
        let store = try await DocumentStore.open(StoreConfiguration(engine: .memory))
        let collection = store.database("local").collection("log")
        _ = try await collection.createIndex(["time": -1, "_id": -1])
        _ = try await collection.createIndex(["n": 1])
        let log = CappedLog(collection: collection, timeField: "time", retention: 5)
        try await log.prepare()
        let names = try await collection.listIndexes().compactMap { $0["name"]?.stringValue }
        #expect(names == ["_id_", "n_1"])
        await store.close()
    }

    @Test func equalTimesAreOrderedByIdentifier() async throws {
        let store = try await DocumentStore.open(StoreConfiguration(engine: .memory))
        let collection = store.database("local").collection("log")
        let log = CappedLog(collection: collection, timeField: "time", retention: 2, pruneInterval: 3)
        let ids = (0..<3).map { _ in ObjectId() }
        for (index, id) in ids.enumerated().reversed() {
            var document = Self.entry(1, id: id)
            document["n"] = .int64(Int64(index))
            try await log.insert(document)
        }
        #expect(try await Self.kept(collection) == [1, 2])
        await store.close()
    }
}
