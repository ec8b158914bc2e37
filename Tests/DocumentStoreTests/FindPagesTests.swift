import BSON
import Testing

@testable import DocumentStore

/// A find keeps only its page while it scans (projected as met without a sort, the best `skip + limit` so far with
/// one): the pages must be the ones a find that held every match would answer.
@Suite struct FindPagesTests {
    /// 1,000 documents, more than the sort keeps before it prunes, with `rank` repeating every 7 so that ties
    /// must keep their insertion order.
    private func queue(_ store: DocumentStore) async throws -> DocumentCollection {
        let collection = store.database("app").collection("queue")
        _ = try await collection.insertMany(
            (0..<1_000).map { index in
                [
                    "_id": .int32(Int32(index)), "rank": .int32(Int32(index % 7)), "processed": .bool(index % 3 == 0),
                    "payload": .string(String(repeating: "p", count: 100)),
                ]
            })
        return collection
    }

    @Test(arguments: EngineKind.allCases) func aSortedPageWithALimitIsTheSortedMatchesTiesInInsertionOrder(
        kind: EngineKind
    ) async throws {
        try await withStore(kind) { store in
            let collection = try await queue(store)
            let page = try await collection.find(
                ["processed": false],
                options: FindOptions(projection: ["_id": 1], sort: ["rank": -1], skip: 30, limit: 200)
            ).toArray()
            let expected = (0..<1_000).filter { $0 % 3 != 0 }
                .sorted { lhs, rhs in lhs % 7 != rhs % 7 ? lhs % 7 > rhs % 7 : lhs < rhs }
                .dropFirst(30).prefix(200)
            #expect(page == expected.map { ["_id": .int32(Int32($0))] })
        }
    }

    @Test(arguments: EngineKind.allCases) func anUnsortedPageIsProjectedInScanOrderAfterItsSkip(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let collection = try await queue(store)
            let page = try await collection.find(
                ["processed": true], options: FindOptions(projection: ["rank": 1, "_id": 0], skip: 5, limit: 3)
            ).toArray()
            #expect(page == [15, 18, 21].map { ["rank": .int32(Int32($0 % 7))] })
            let all = try await collection.find([:], options: FindOptions(projection: ["_id": 1])).toArray()
            #expect(all == (0..<1_000).map { ["_id": .int32(Int32($0))] })
        }
    }
}
