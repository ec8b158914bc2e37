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
