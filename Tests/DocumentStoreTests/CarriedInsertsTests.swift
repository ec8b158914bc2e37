import BSON
import Synchronization
import Testing

@testable import DocumentStore

/// A record of something done commits with the write that says it was done: the task's next write takes it into
/// its transaction, and what no write took is inserted when the scope ends.
@Suite struct CarriedInsertsTests {
    @Test(arguments: EngineKind.allCases) func anInsertCommitsWithTheTasksNextWriteInOneTransaction(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let queue = store.database("app").collection("queue")
            let outbox = store.database("local").collection("outbox")
            try await queue.insertOne(["_id": 1, "processed": false])
            let committed = Counter()
            try await CarriedInserts.carrying {
                try await outbox.insertWithNextWrite(["_id": "sent-1"]) { committed.increment() }
                #expect(try await outbox.countDocuments() == 0)
                #expect(committed.value == 0)
                let before = store.worker.transactionsCommitted.load(ordering: .relaxed)
                try await queue.updateOne(["_id": 1], ["$set": ["processed": true]])
                #expect(store.worker.transactionsCommitted.load(ordering: .relaxed) == before + 1)
                #expect(try await outbox.find().toArray() == [["_id": "sent-1"]])
                #expect(committed.value == 1)
            }
            #expect(try await outbox.countDocuments() == 1)
            #expect(committed.value == 1)
        }
    }

    @Test(arguments: EngineKind.allCases) func whatNoWriteTookIsInsertedWhenTheScopeEnds(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let outbox = store.database("local").collection("outbox")
            try await CarriedInserts.carrying {
                try await outbox.insertWithNextWrite(["_id": "a"]) {}
                try await outbox.insertWithNextWrite(["_id": "b"]) {}
            }
            #expect(try await outbox.find().toArray() == [["_id": "a"], ["_id": "b"]])
        }
    }

    @Test(arguments: EngineKind.allCases) func aFailedWriteLeavesTheInsertForTheNextOne(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let queue = store.database("app").collection("queue")
            let outbox = store.database("local").collection("outbox")
            try await queue.insertOne(["_id": 1])
            await #expect(throws: StoreError.self) {
                try await CarriedInserts.carrying {
                    try await outbox.insertWithNextWrite(["_id": "sent-1"]) {}
                    await #expect(throws: StoreError.self) { try await queue.insertOne(["_id": 1]) }
                    #expect(try await outbox.countDocuments() == 0)
                    try await queue.insertOne(["_id": 2])
                    #expect(try await outbox.countDocuments() == 1)
                    // A function that fails still leaves the records of what it did.
                    throw StoreError.badValue("the function failed")
                }
            }
            #expect(try await outbox.find().toArray() == [["_id": "sent-1"]])
            #expect(try await queue.countDocuments() == 2)
        }
    }

    @Test func outsideAScopeAnInsertIsCommittedAtOnce() async throws {
        try await withStore(.memory) { store in
            let outbox = store.database("local").collection("outbox")
            let committed = Counter()
            try await outbox.insertWithNextWrite(["_id": "now"]) { committed.increment() }
            #expect(committed.value == 1)
            #expect(try await outbox.countDocuments() == 1)
        }
    }
}

/// Counts the calls of a `committed` closure.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
