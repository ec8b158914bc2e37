import BSON
import DocumentStore
import Foundation
import Testing

@testable import Switchyard

/// The invocation log's pages: many records to a document, pruned a page at a time, read newest first whatever
/// order the runs ended in, alongside one-record documents (the log's earlier layout).
@Suite struct InvocationPagesTests {
    static let origin = Date(timeIntervalSince1970: 1_800_000_000)

    static func record(_ seconds: Int, function: String = "f", logs: [String] = []) -> InvocationRecord {
        InvocationRecord(
            function: function, userId: "u", start: origin.addingTimeInterval(Double(seconds)), duration: .zero,
            outcome: .success, logs: logs)
    }

    static func entries(_ records: [InvocationRecord]) -> [InvocationPages.Entry] {
        records.map { ($0.encoded, BSONDate($0.start)) }
    }

    static func seconds(_ records: [InvocationRecord]) -> [Int] {
        records.map { Int($0.start.timeIntervalSince(origin)) }
    }

    /// The records the pages in `collection` say they hold.
    static func recordsInPages(_ collection: DocumentCollection) async throws -> Int64 {
        try await collection.find(["count": ["$exists": true]]).toArray().compactMap { $0["count"]?.int64Value }
            .reduce(0, +)
    }

    static func open(retention: Int) async throws -> (DocumentStore, DocumentCollection, InvocationPages) {
        let store = try await DocumentStore.open(StoreConfiguration(engine: .memory))
        let collection = store.database("local").collection("invocations")
        let pages = InvocationPages(collection: collection, retention: retention)
        try await pages.prepare()
        return (store, collection, pages)
    }

    @Test func aBatchIsStoredInPagesOfATenthOfTheRetention() async throws {
        let (store, collection, pages) = try await Self.open(retention: 1_000)
        try await pages.write(Self.entries((0..<250).map { Self.record($0) }))
        let stored = try await collection.find([:], options: FindOptions(sort: ["firstStart": 1])).toArray()
        #expect(stored.map { $0["count"]?.int64Value } == [100, 100, 50])
        #expect(stored.map { $0["records"]?.arrayValue?.count } == [100, 100, 50])
        #expect(stored.last?["firstStart"] == .datetime(BSONDate(Self.origin.addingTimeInterval(200))))
        #expect(stored.last?["lastStart"] == .datetime(BSONDate(Self.origin.addingTimeInterval(249))))
        // A page's records are the runs' own documents.
        let first = try #require(stored.first?["records"]?.arrayValue?.first?.documentValue)
        #expect(try InvocationRecord(document: first).function == "f")
        #expect(try await Self.seconds(pages.latest(InvocationFilter(), limit: 3)) == [247, 248, 249])
        await store.close()
    }

    @Test func largeRecordsCloseAPageEarly() async throws {
        let (store, collection, pages) = try await Self.open(retention: 1_000)
        let line = String(repeating: "x", count: 300_000)
        try await pages.write(Self.entries((0..<5).map { Self.record($0, logs: [line]) }))
        let counts = try await collection.find().toArray().compactMap { $0["count"]?.int64Value }
        // About 300 KB each, a megabyte a page.
        #expect(counts.sorted() == [2, 3])
        #expect(try await pages.latest(InvocationFilter(), limit: 10).map(\.logs) == Array(repeating: [line], count: 5))
        await store.close()
    }

    @Test func pagesGoWholeOnceEveryRecordOnThemIsBeyondTheRetention() async throws {
        let (store, collection, pages) = try await Self.open(retention: 30)
        // Capacity 3: pages of 3, written a batch of 7 at a time (pages of 3, 3 and 1).
        for batch in 0..<20 {
            try await pages.write(Self.entries((batch * 7..<batch * 7 + 7).map { Self.record($0) }))
            let stored = try await collection.find().toArray().compactMap { $0["count"]?.int64Value }
            let records = Int(stored.reduce(0, +))
            #expect(records >= min(30, (batch + 1) * 7))
            #expect(records < 30 + 3)
        }
        let kept = try await pages.latest(InvocationFilter(), limit: 100)
        #expect(Self.seconds(kept) == Array(140 - kept.count..<140))
        await store.close()
    }

    @Test func runsThatEndedOutOfOrderAreReadByTheirStart() async throws {
        let (store, _, pages) = try await Self.open(retention: 1_000)
        // A long run that started at 5 ended after those that started at 10 and 20 were written.
        try await pages.write(Self.entries([Self.record(10), Self.record(20)]))
        try await pages.write(Self.entries([Self.record(5), Self.record(30)]))
        try await pages.write(Self.entries([Self.record(40)]))
        #expect(try await Self.seconds(pages.latest(InvocationFilter(), limit: 2)) == [30, 40])
        #expect(try await Self.seconds(pages.latest(InvocationFilter(), limit: 4)) == [10, 20, 30, 40])
        #expect(try await Self.seconds(pages.latest(InvocationFilter(), limit: 9)) == [5, 10, 20, 30, 40])
        let early = InvocationFilter(until: Self.origin.addingTimeInterval(20))
        #expect(try await Self.seconds(pages.latest(early, limit: 9)) == [5, 10])
        let late = InvocationFilter(since: Self.origin.addingTimeInterval(20))
        #expect(try await Self.seconds(pages.latest(late, limit: 9)) == [20, 30, 40])
        // The newest page's oldest run is older than a run on the page before it.
        try await pages.write(Self.entries([Self.record(35)]))
        try await pages.write(Self.entries([Self.record(1), Self.record(50)]))
        #expect(try await Self.seconds(pages.latest(InvocationFilter(), limit: 2)) == [40, 50])
        #expect(try await Self.seconds(pages.latest(InvocationFilter(), limit: 3)) == [35, 40, 50])
        await store.close()
    }

    @Test func filtersPickRecordsAcrossPages() async throws {
        let (store, _, pages) = try await Self.open(retention: 1_000)
        for batch in 0..<4 {
            try await pages.write(
                Self.entries((0..<10).map { Self.record(batch * 10 + $0, function: $0 == 3 ? "rare" : "common") }))
        }
        let rare = try await pages.latest(InvocationFilter(function: "rare"), limit: 3)
        #expect(Self.seconds(rare) == [13, 23, 33])
        #expect(try await pages.latest(InvocationFilter(trigger: "none"), limit: 3).isEmpty)
        #expect(try await pages.latest(InvocationFilter(outcome: .failure), limit: 3).isEmpty)
        #expect(try await pages.latest(InvocationFilter(), limit: 0).isEmpty)
        await store.close()
    }

    @Test func recordsEarlierVersionsStoredAloneAreReadAndPrunedWithThePages() async throws {
        let (store, collection, _) = try await Self.open(retention: 10)
        // The earlier layout: one document per record, with an index on start.
        _ = try await collection.createIndex(["start": -1, "_id": -1])
        try await collection.insertMany((0..<8).map { Self.record($0).document })
        let reopened = InvocationPages(collection: collection, retention: 10)
        try await reopened.prepare()
        #expect(try await collection.listIndexes().compactMap { $0["name"]?.stringValue } == ["_id_"])
        #expect(try await Self.seconds(reopened.latest(InvocationFilter(), limit: 20)) == Array(0..<8))

        try await reopened.write(Self.entries((8..<12).map { Self.record($0) }))
        // Twelve records, ten kept: the two oldest, stored alone, went.
        #expect(try await Self.seconds(reopened.latest(InvocationFilter(), limit: 20)) == Array(2..<12))
        #expect(try await collection.countDocuments() == 6 + 4)
        await store.close()
    }

    @Test func pagesDeletedByHandAreNoticedByTheNextWrite() async throws {
        let (store, collection, pages) = try await Self.open(retention: 20)
        for batch in 0..<5 { try await pages.write(Self.entries((batch * 2..<batch * 2 + 2).map { Self.record($0) })) }
        // Someone deletes the two newest pages and adds a document that is no page at all.
        let newest = try await collection.find([:], options: FindOptions(sort: ["lastStart": -1], limit: 2)).toArray()
        try await collection.deleteMany(["_id": ["$in": .array(newest.compactMap { $0["_id"] })]])
        try await collection.insertOne(["_id": "by-hand", "note": "kept"])
        for batch in 5..<20 { try await pages.write(Self.entries((batch * 2..<batch * 2 + 2).map { Self.record($0) })) }
        // Had the log still counted the deleted pages, it would have pruned to fewer than 20.
        #expect(try await Self.recordsInPages(collection) == 20)
        #expect(try await collection.countDocuments(["_id": "by-hand"]) == 1)
        await store.close()
    }

    /// Noticed by the collection's writes, not its count: a page replaced by another document leaves it unchanged.
    @Test func aPageReplacedByHandIsNoticedThoughTheCountStaysTheSame() async throws {
        let (store, collection, pages) = try await Self.open(retention: 20)
        for batch in 0..<5 { try await pages.write(Self.entries((batch * 2..<batch * 2 + 2).map { Self.record($0) })) }
        let newest = try #require(
            try await collection.find([:], options: FindOptions(sort: ["lastStart": -1], limit: 1)).toArray().first)
        try await collection.deleteOne(["_id": newest["_id"] ?? .null])
        try await collection.insertOne(["_id": "by-hand", "note": "kept"])
        for batch in 5..<11 { try await pages.write(Self.entries((batch * 2..<batch * 2 + 2).map { Self.record($0) })) }
        // Ten pages of two: had the log still counted the replaced page, it would have pruned one of them.
        #expect(try await Self.recordsInPages(collection) == 20)
        #expect(try await collection.countDocuments(["_id": "by-hand"]) == 1)
        await store.close()
    }
}
