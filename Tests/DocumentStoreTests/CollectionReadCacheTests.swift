import BSON
import Synchronization
import Testing

@testable import DocumentStore

/// A cache of reads sees every write acknowledged before it is asked: whatever wrote, however.
@Suite struct CollectionReadCacheTests {
    /// Counts the reads a cache runs.
    final class Reads: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func note() { count.withLock { $0 += 1 } }
    }

    @Test(arguments: EngineKind.allCases) func answersFromMemoryUntilTheCollectionIsWritten(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let users = store.database("app").collection("users")
            try await users.insertOne(["_id": "ada", "role": "reader"])
            let cache = CollectionReadCache<String, BSONDocument?>(collection: users)
            let reads = Reads()
            func role() async throws -> BSON? {
                try await cache.value(for: "ada") { collection in
                    reads.note()
                    return try await collection.findOne(["_id": "ada"])
                }?["role"]
            }
            #expect(try await role() == "reader")
            #expect(try await role() == "reader")
            #expect(reads.value == 1)
            try await users.updateOne(["_id": "ada"], ["$set": ["role": "editor"]])
            #expect(try await role() == "editor")
            #expect(reads.value == 2)
            // A write to another collection leaves it be.
            try await store.database("app").collection("books").insertOne(["title": "Dune"])
            #expect(try await role() == "editor")
            #expect(reads.value == 2)
            try await users.deleteOne(["_id": "ada"])
            #expect(try await role() == nil)
            #expect(reads.value == 3)
        }
    }

    @Test(arguments: EngineKind.allCases) func everyKindOfWriteMovesTheVersion(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let database = store.database("app")
            let users = database.collection("users")
            let version = users.writeVersion
            var seen: Set<UInt64> = [version.current]
            func moved(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(
                    seen.insert(version.current).inserted, "\(what) did not move the version",
                    sourceLocation: sourceLocation)
            }
            try await database.createCollection("users")
            moved("createCollection")
            try await users.insertOne(["_id": 1])
            moved("insertOne")
            try await users.insertMany([["_id": 2], ["_id": 3]])
            moved("insertMany")
            try await users.updateOne(["_id": 1], ["$set": ["a": 1]])
            moved("updateOne")
            try await users.updateMany([:], ["$set": ["b": 1]])
            moved("updateMany")
            try await users.replaceOne(["_id": 1], ["c": 1])
            moved("replaceOne")
            _ = try await users.findOneAndUpdate(["_id": 2], ["$set": ["d": 1]])
            moved("findOneAndUpdate")
            _ = try await users.findOneAndReplace(["_id": 2], ["e": 1])
            moved("findOneAndReplace")
            _ = try await users.findOneAndDelete(["_id": 2])
            moved("findOneAndDelete")
            try await users.bulkWrite([.insertOne(["_id": 4])])
            moved("bulkWrite")
            try await users.deleteOne(["_id": 4])
            moved("deleteOne")
            try await users.deleteMany([:])
            moved("deleteMany")
            try await users.createIndex(["a": 1])
            moved("createIndex")
            try await users.replaceContents([["_id": 5]], indexes: [], changeLogged: false)
            moved("replaceContents")
            // A failed write may have written part of itself: it moves the version too.
            await #expect(throws: BulkWriteError.self) { try await users.insertMany([["_id": 6], ["_id": 5]]) }
            moved("a failed insertMany")
            try await database.collection("staff").insertOne(["_id": 9])
            let renamed = try await database.collection("staff").rename(to: "users", dropTarget: true)
            moved("renaming another collection onto it")
            try await renamed.rename(to: "people")
            moved("renaming it")
            try await database.collection("users").insertOne(["_id": 7])
            moved("insertOne")
            try await users.drop()
            moved("drop")
            try await users.insertOne(["_id": 8])
            moved("insertOne")
            try await database.drop()
            moved("dropping its database")
        }
    }
}
