import BSON
import Foundation
import TestSupport
import Testing

@testable import DocumentStore

/// Two store instances on one PostgreSQL database, as two `switchyard serve` processes on it would be.
@Suite struct SharedStorageEngineTests {
    @Test func twoInstancesWritingTogetherLogEveryWriteOnceInCommitOrder() async throws {
        let directory = TemporaryDirectory()
        let configuration = try await configuration(.postgresql, directory: directory)
        let first = try await DocumentStore.open(configuration)
        let second = try await DocumentStore.open(configuration)
        let streams = [try await first.watch(), try await second.watch()]
        let (writers, inserts) = (3, 120)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, store) in [("a", first), ("b", second)] {
                let books = store.database("app").collection("books")
                for writer in 0..<writers {
                    group.addTask {
                        for index in 0..<inserts {
                            try await books.insertOne(["_id": .string("\(name)-\(writer)-\(index)")])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = 2 * writers * inserts
        let log = try await second.worker.read { core throws(StoreError) in
            try core.engine.changes(after: 0, limit: 10_000)
        }
        let events = try log.map { try DocumentEncoding.decode($0.event) }
        let inserted = events.filter { $0["operationType"] == "insert" }.compactMap {
            $0["documentKey"]?.documentValue?["_id"]?.stringValue
        }
        // One collection (the instance that lost the race to create it wrote into the other's) and every write once.
        #expect(events.filter { $0["operationType"] == "create" }.count == 1)
        #expect(inserted.count == total)
        #expect(Set(inserted).count == total)
        // Sequences follow one another, and each writer's inserts (each awaited before the next) in its order.
        #expect(log.map(\.sequence) == Array(1...Int64(log.count)))
        for name in ["a", "b"] {
            for writer in 0..<writers {
                let own = inserted.filter { $0.hasPrefix("\(name)-\(writer)-") }
                #expect(own == (0..<inserts).map { "\(name)-\(writer)-\($0)" })
            }
        }
        // Each instance's stream sees every event of both, in the log's order.
        let expected = zip(log, events).filter { $0.1["operationType"] == "insert" }.map(\.0.sequence)
        for stream in streams {
            let seen = try await within(seconds: 60) { try await next(total, from: stream) }
            #expect(seen.map(\.id.sequence) == expected)
        }
        await first.close()
        await second.close()
    }

    @Test func aCollectionAndAUniqueIndexOneInstanceMadeAreUsedByTheOther() async throws {
        let directory = TemporaryDirectory()
        let configuration = try await configuration(.postgresql, directory: directory)
        let first = try await DocumentStore.open(configuration)
        let second = try await DocumentStore.open(configuration)
        let app = first.database("app")
        _ = try await app.createCollection(
            "books", options: CreateCollectionOptions(changeStreamPreAndPostImages: true))
        _ = try await app.collection("books").createIndex(["isbn": 1], unique: true)
        try await app.collection("books").insertOne(["_id": 1, "isbn": "0441013597"])
        let stream = try await app.collection("books").watch(
            options: ChangeStreamOptions(fullDocumentBeforeChange: .required))

        let books = second.database("app").collection("books")
        await expectStoreError(.duplicateKey) { try await books.insertOne(["_id": 2, "isbn": "0441013597"]) }
        try await books.insertOne(["_id": 3, "isbn": "0553293354"])
        try await books.updateOne(["_id": 3], ["$set": ["title": "Foundation"]])
        // The second instance kept the first's index and recorded the pre-image its collection asks for.
        #expect(try await app.collection("books").findOne(["isbn": "0553293354"])?["_id"] == 3)
        #expect(try await app.collection("books").explain(["isbn": "0553293354"]).stage == "IXSCAN")
        #expect(try await app.listCollectionNames() == ["books"])
        let events = try await within(seconds: 60) { try await next(2, from: stream) }
        #expect(events.map(\.operationType) == [.insert, .update])
        #expect(events.last?.fullDocumentBeforeChange == ["_id": 3, "isbn": "0553293354"])
        await first.close()
        await second.close()
    }

    /// A multi-statement transaction holds its instance's store: the catalog it runs on cannot be read anew under
    /// it, so a statement meeting another instance's catalog change fails with the transient WriteConflict, and
    /// the transaction cannot commit.
    @Test func aTransactionOnACatalogAnotherInstanceChangedEndsInAWriteConflict() async throws {
        let directory = TemporaryDirectory()
        let configuration = try await configuration(.postgresql, directory: directory)
        let first = try await DocumentStore.open(configuration)
        let second = try await DocumentStore.open(configuration)
        let books = second.database("app").collection("books")
        try await books.insertOne(["_id": 1, "isbn": "0441013597"])
        let transaction = try await second.startTransaction(lifetime: .seconds(60))
        _ = try await first.database("app").collection("books").createIndex(["isbn": 1], unique: true)
        let conflict = await expectStoreError(.writeConflict) {
            _ = try await transaction.run { try await books.insertOne(["_id": 2, "isbn": "0441013597"]) }
        }
        #expect(conflict?.code.name == "WriteConflict")
        await expectStoreError(.writeConflict) { try await transaction.commit() }
        // Once it ended, the instance reads the catalog again and enforces the index.
        await expectStoreError(.duplicateKey) { try await books.insertOne(["_id": 2, "isbn": "0441013597"]) }
        #expect(try await books.countDocuments() == 1)
        await first.close()
        await second.close()
    }

    /// Each instance prunes the change log by what all of them appended: the log keeps the retention's events, not
    /// that many per instance.
    @Test func instancesPruneTheSharedLogToOneRetention() async throws {
        let directory = TemporaryDirectory()
        var configuration = try await configuration(.postgresql, directory: directory)
        configuration.changeLogRetention = ChangeLogRetention(maximumEvents: 10)
        let stores = [try await DocumentStore.open(configuration), try await DocumentStore.open(configuration)]
        for (turn, store) in [0, 1, 0, 1, 0].enumerated() {
            let books = stores[store].database("app").collection("books")
            for index in 0..<8 { try await books.insertOne(["_id": .string("\(turn)-\(index)")]) }
            // Read on the writer's thread, after the prune that follows its last commit.
            let log = try await stores[store].worker.read { core throws(StoreError) in
                try core.engine.changeLogSummary()
            }
            #expect(log.count <= 10, "after turn \(turn)")
        }
        // The log starts where the last prune of either ended, and either resumes from there.
        let start = try await stores[1].changeLogStart()
        #expect(start == 40 + 1 - 10)  // 40 inserts and the collection's create, 10 of them kept
        #expect(try await stores[0].changeLogStart() == start)
        for store in stores { await store.close() }
    }
}
