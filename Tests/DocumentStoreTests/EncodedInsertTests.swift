import BSON
import Testing

@testable import DocumentStore

/// `insertMany(encoded:)`: what logs write, bytes in, the same documents out as `insertMany` would store.
@Suite struct EncodedInsertTests {
    static func encoded(_ number: Int64, id: ObjectId = ObjectId()) -> EncodedDocument {
        EncodedDocument(id: id) { writer in
            writer.append("n", number)
            writer.append("tag", "t\(number % 3)")
        }
    }

    @Test(arguments: EngineKind.allCases) func unindexedLocalDocumentsAreStoredAsTheirBytes(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let log = store.database("local").collection("log")
            let documents = (0..<50).map { Self.encoded(Int64($0)) }
            try await log.insertMany(encoded: documents)
            let stored = try await log.find([:], options: FindOptions(sort: ["n": 1])).toArray()
            #expect(stored.map { $0["_id"] } == documents.map { .objectId($0.id) })
            #expect(stored.map { $0["n"] } == (0..<50).map { .int64(Int64($0)) })
            #expect(try await log.countDocuments(["tag": "t1"]) == 17)
            #expect(try await log.findOne(["_id": .objectId(documents[7].id)])?["n"] == .int64(7))
        }
    }

    @Test(arguments: EngineKind.allCases) func aDuplicateIdFailsAloneAndTheOthersAreInserted(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let log = store.database("local").collection("log")
            let taken = ObjectId()
            try await log.insertMany(encoded: [Self.encoded(1, id: taken)])
            do {
                try await log.insertMany(encoded: [Self.encoded(2), Self.encoded(3, id: taken), Self.encoded(4)])
                Issue.record("a duplicate _id was accepted")
            } catch let error as BulkWriteError {
                #expect(error.writeErrors.map(\.index) == [1])
                #expect(error.writeErrors.map(\.code) == [.duplicateKey])
                #expect(error.result.insertedCount == 2)
            }
            #expect(try await log.find().toArray().compactMap { $0["n"]?.int64Value }.sorted() == [1, 2, 4])
        }
    }

    @Test(arguments: EngineKind.allCases) func indexedAndChangeLoggedCollectionsGetTheirEntriesAndEvents(
        kind: EngineKind
    ) async throws {
        try await withStore(kind) { store in
            let books = store.database("app").collection("books")
            try await books.createIndex(["n": 1], unique: true)
            let stream = try await books.watch()
            try await books.insertMany(encoded: [Self.encoded(1), Self.encoded(2)])
            let events = try await next(2, from: stream)
            #expect(events.map(\.operationType) == [.insert, .insert])
            #expect(events.map { $0.fullDocument?["n"] } == [.int64(1), .int64(2)])
            // The unique index saw both: a third document with n 2 is refused, the one with n 3 goes in.
            do {
                try await books.insertMany(encoded: [Self.encoded(2), Self.encoded(3)])
                Issue.record("the unique index on n was not kept")
            } catch let error as BulkWriteError {
                #expect(error.writeErrors.map(\.index) == [0])
            }
            #expect(try await books.countDocuments() == 3)
        }
    }
}
