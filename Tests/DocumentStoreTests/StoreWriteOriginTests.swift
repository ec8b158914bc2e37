import BSON
import Testing

@testable import DocumentStore

/// A task's writes are tagged in the change log with its `StoreWriteOrigin`, read back by tag, and never shown in a
/// change event.
@Suite struct StoreWriteOriginTests {
    /// Every string a value holds, at any depth.
    private func strings(in value: BSON) -> [String] {
        switch value {
        case .string(let string): [string]
        case .document(let document): document.flatMap { strings(in: $0.value) }
        case .array(let values): values.flatMap(strings)
        default: []
        }
    }

    @Test(arguments: EngineKind.allCases) func aTasksWritesAreReadBackByItsTagInLogOrder(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 0, "title": "untagged"])
            try await StoreWriteOrigin.$current.withValue("run-1") {
                try await books.insertOne(["_id": 1, "title": "Dune"])
                try await books.updateOne(["_id": 1], ["$set": ["title": "Dune Messiah"]])
            }
            try await StoreWriteOrigin.$current.withValue("run-2") {
                try await books.deleteOne(["_id": 0])
            }
            let changes = try await store.changes(origins: ["run-1", "run-2", "run-3"])
            #expect(changes["run-1"]?.map(\.operationType) == [.insert, .update])
            #expect(changes["run-1"]?.first?.fullDocument == ["_id": 1, "title": "Dune"])
            #expect(changes["run-1"]?.last?.updateDescription?.updatedFields == ["title": "Dune Messiah"])
            #expect(changes["run-2"]?.map(\.documentKey) == [["_id": 0]])
            #expect(changes["run-3"] == nil)
            #expect(try await store.changeOriginsTaggedAfter() == 0)
        }
    }

    @Test(arguments: EngineKind.allCases) func changeEventsDoNotCarryTheTag(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let books = store.database("app").collection("books")
            let stream = try await store.watch()
            try await StoreWriteOrigin.$current.withValue("tag-of-run-7") {
                try await books.insertOne(["_id": 1, "title": "Dune"])
                try await books.updateOne(["_id": 1], ["$set": ["title": "Dune Messiah"]])
            }
            let streamed = try await next(2, from: stream)
            let read = try await store.changes(after: ResumeToken(sequence: 0), limit: 100).events
            #expect(streamed.count == 2)
            #expect(read.count == 2)
            for event in streamed + read {
                #expect(!strings(in: .document(event.raw)).contains("tag-of-run-7"))
            }
        }
    }

    @Test func aRolledBackWriteLeavesNoTaggedEntry() async throws {
        try await withStore(.memory) { store in
            let books = store.database("app").collection("books")
            try await books.createIndex(["isbn": 1], unique: true)
            try await books.insertOne(["_id": 1, "isbn": "a"])
            await #expect(throws: StoreError.self) {
                try await StoreWriteOrigin.$current.withValue("run-1") {
                    try await books.insertOne(["_id": 2, "isbn": "a"])
                }
            }
            try await StoreWriteOrigin.$current.withValue("run-1") {
                try await books.insertOne(["_id": 3, "isbn": "b"])
            }
            #expect(try await store.changes(origins: ["run-1"])["run-1"]?.map(\.documentKey) == [["_id": 3]])
        }
    }
}
