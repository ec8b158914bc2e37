import BSON
import Testing

@testable import DocumentStore

/// What an update may grow a document by, as MongoDB bounds it: padding an array by more than 1,500,000 elements
/// is `CannotBackfillArray`, a result over 16 MiB is `BSONObjectTooLarge`, both refused before the padding or the
/// repeated values are built, and a refused `updateMany` changes no document.
@Suite struct UpdateSizeLimitTests {
    static func documents() -> [BSONDocument] {
        (1...5).map { ["_id": .int32(Int32($0)), "arr": [], "other": []] }
    }

    @Test(arguments: EngineKind.allCases)
    func paddingAnArrayPastTheServersLimitIsCannotBackfillArray(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let collection = store.database("app").collection("items")
            try await collection.insertMany(Self.documents())
            let error = await expectStoreError(.cannotBackfillArray) {
                _ = try await collection.updateMany([:], ["$set": ["arr.1500001": 1]])
            }
            #expect(error?.codeName == "CannotBackfillArray")
            #expect(error?.message == "can't backfill more than 1500000 elements")
            // Padding up to the limit is the server's to allow.
            #expect(try await collection.updateOne(["_id": 1], ["$set": ["arr.3": 1]]).modifiedCount == 1)
            #expect(try await collection.findOne(["_id": 1])?["arr"] == [.null, .null, .null, 1])
        }
    }

    @Test(arguments: EngineKind.allCases)
    func anUpdateGrowingDocumentsPast16MiBIsBSONObjectTooLarge(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let collection = store.database("app").collection("items")
            try await collection.insertMany(Self.documents())
            // Each padding alone is allowed (about 12 MB); both together pass 16 MiB.
            let error = await expectStoreError(.bsonObjectTooLarge) {
                _ = try await collection.updateMany([:], ["$set": ["arr.1400000": 1, "other.1400000": 1]])
            }
            #expect(error?.codeName == "BSONObjectTooLarge")
            #expect(error?.message == "Resulting document after update is larger than 16777216")
            // Nothing changed, and the store goes on taking writes.
            #expect(try await collection.countDocuments(["arr": []]) == 5)
            try await collection.insertOne(["_id": 6, "arr": []])
            #expect(try await collection.updateMany([:], ["$set": ["flag": true]]).modifiedCount == 6)
        }
    }

    @Test func everyElementAnAllPositionalUpdateWritesCountsTowardsTheLimit() throws {
        let update = try UpdateSpecification(["$set": ["arr.$[]": .string(String(repeating: "x", count: 200))]])
        let document: BSONDocument = ["_id": 1, "arr": .array(Array(repeating: .null, count: 100_000))]
        #expect(throws: StoreError.resultTooLarge) { try update.apply(to: document) }
    }

    @Test func theBudgetCountsWhatEncodingWouldWrite() throws {
        let document: BSONDocument = [
            "_id": 1, "s": "text", "n": 2.5, "a": [1, "b", ["c": .null]],
            "big": .array(Array(repeating: 1, count: 1234)),
        ]
        #expect(document.encodedSize == (try DocumentEncoding.encode(document)).count)
        let padded = BSON.array(Array(repeating: .null, count: 12_345))
        #expect(BSON.paddingSize(from: 0, count: 12_345) + 5 == padded.encodedSize)
    }

    @Test(arguments: EngineKind.allCases)
    func insertingADocumentOver16MiBIsBSONObjectTooLarge(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let collection = store.database("app").collection("items")
            let error = await expectStoreError(.bsonObjectTooLarge) {
                try await collection.insertOne([
                    "_id": 1, "s": .string(String(repeating: "x", count: 16 * 1024 * 1024)),
                ])
            }
            #expect(error?.codeName == "BSONObjectTooLarge")
            #expect(error?.message.hasPrefix("object to insert too large. size in bytes: ") == true)
        }
    }
}
