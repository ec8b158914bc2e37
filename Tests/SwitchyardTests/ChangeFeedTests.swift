import BSON
import DocumentStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Switchyard

@Suite struct ChangeFeedTests {
    /// Inserts `_id`s `range` into app.books and returns the log's end after them.
    static func insert(_ range: ClosedRange<Int>, into store: DocumentStore) async throws -> Int64 {
        let books = store.database("app").collection("books")
        for i in range { try await books.insertOne(["_id": .int32(Int32(i))]) }
        return try await store.watch().startingPoint.sequence
    }

    /// The `_id`s of the next `count` events of `cursor`.
    static func keys(_ count: Int, from cursor: inout ChangeFeed.Cursor) async throws -> [Int] {
        var keys: [Int] = []
        while keys.count < count, let entry = try await cursor.next() {
            if case .int32(let key) = entry.event.documentKey?["_id"] { keys.append(Int(key)) }
        }
        return keys
    }

    @Test(arguments: StoreKind.allCases) func cursorsEachReadEveryEventInOrder(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let start = try await store.watch().startingPoint.sequence
            let feed = ChangeFeed(store: store, preImages: false, after: start)
            var first = try await ChangeFeed.Cursor.open(feed, after: start)
            var second = try await ChangeFeed.Cursor.open(feed, after: start)
            _ = try await Self.insert(1...5, into: store)
            #expect(try await Self.keys(5, from: &first) == [1, 2, 3, 4, 5])
            _ = try await Self.insert(6...8, into: store)
            #expect(try await Self.keys(8, from: &second) == [1, 2, 3, 4, 5, 6, 7, 8])
            #expect(try await Self.keys(3, from: &first) == [6, 7, 8])
        }
    }

    /// A cursor behind the window (a restart's catch-up, or a trigger slower than the writers) reads what
    /// the feed no longer holds from the store, then joins the feed again; nothing is missed or repeated.
    @Test func aCursorBehindTheWindowMissesNothing() async throws {
        try await withStore(.memory) { store, _ in
            let before = try await Self.insert(1...3, into: store)
            let feed = ChangeFeed(store: store, preImages: false, after: before, capacity: 4)
            var catchingUp = try await ChangeFeed.Cursor.open(feed, after: 0)
            var fast = try await ChangeFeed.Cursor.open(feed, after: before)
            var slow = try await ChangeFeed.Cursor.open(feed, after: before)
            _ = try await Self.insert(4...20, into: store)
            #expect(try await Self.keys(17, from: &fast) == Array(4...20))
            #expect(try await Self.keys(20, from: &catchingUp) == Array(1...20))
            #expect(try await Self.keys(17, from: &slow) == Array(4...20))
            _ = try await Self.insert(21...22, into: store)
            #expect(try await Self.keys(2, from: &slow) == [21, 22])
        }
    }

    /// The cursor reading for everyone is cancelled (its trigger stopped): the others go on.
    @Test func anotherCursorTakesOverFromACancelledReader() async throws {
        try await withStore(.memory) { store, _ in
            let start = try await store.watch().startingPoint.sequence
            let feed = ChangeFeed(store: store, preImages: false, after: start)
            let reader = Task {
                var cursor = try await ChangeFeed.Cursor.open(feed, after: start)
                return try await cursor.next()?.event
            }
            try await Task.sleep(for: .milliseconds(20))
            reader.cancel()
            #expect(try await reader.value == nil)
            var other = try await ChangeFeed.Cursor.open(feed, after: start)
            _ = try await Self.insert(1...2, into: store)
            #expect(try await Self.keys(2, from: &other) == [1, 2])
        }
    }

    /// Closing the store ends a waiting cursor (quietly, or with the store's error when it was mid-read).
    @Test func cursorsEndWhenTheStoreCloses() async throws {
        let directory = try TemporaryDirectory()
        let store = try await DocumentStore.open(.sqlite(directory: directory.path))
        let feed = ChangeFeed(store: store, preImages: false, after: 0)
        let read = Mutex<[Int]>([])
        let waiting = Task {
            do {
                var cursor = try await ChangeFeed.Cursor.open(feed, after: 0)
                while let entry = try await cursor.next() {
                    if case .int32(let key) = entry.event.documentKey?["_id"] {
                        read.withLock { $0.append(Int(key)) }
                    }
                }
            } catch let error as StoreError {
                #expect(error.code == 17_003)
            }
        }
        _ = try await Self.insert(1...2, into: store)
        while read.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(1)) }
        await store.close()
        try await waiting.value
        #expect(read.withLock { $0 } == [1, 2])
    }
}
