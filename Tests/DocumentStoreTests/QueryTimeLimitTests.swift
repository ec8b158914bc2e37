import BSON
import Testing

@testable import DocumentStore

/// `maxTimeMS`: a read past its time budget fails with MongoDB's `MaxTimeMSExpired` instead of running on.
@Suite struct QueryTimeLimitTests {
    @Test(arguments: EngineKind.allCases)
    func readsPastTheirBudgetFailWithMaxTimeMSExpired(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let collection = store.database("app").collection("items")
            try await collection.insertMany([["_id": 1, "n": 1], ["_id": 2, "n": 2]])
            // A budget of zero is spent before the first document is looked at.
            let expired = await expectStoreError(.maxTimeMSExpired) {
                _ = try await collection.find(["n": ["$gte": 1]], options: FindOptions(maxTime: .zero)).toArray()
            }
            #expect(expired?.codeName == "MaxTimeMSExpired")
            #expect(expired?.message == "operation exceeded time limit")
            await expectStoreError(.maxTimeMSExpired) {
                _ = try await collection.findOne(["_id": 1], options: FindOptions(maxTime: .zero))
            }
            await expectStoreError(.maxTimeMSExpired) { _ = try await collection.countDocuments([:], maxTime: .zero) }
            await expectStoreError(.maxTimeMSExpired) {
                _ = try await collection.aggregate([["$match": [:]]], maxTime: .zero)
            }
            // A budget the read fits in changes nothing.
            let found = try await collection.find([:], options: FindOptions(maxTime: .seconds(600))).toArray()
            #expect(found.count == 2)
            #expect(try await collection.countDocuments([:], maxTime: .seconds(600)) == 2)
        }
    }
}
