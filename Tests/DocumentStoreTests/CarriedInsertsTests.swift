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
                    // Not a nested `#expect(throws:)`: the macro does not expand inside its own closure.
                    var refused = false
                    do { try await queue.insertOne(["_id": 1]) } catch is StoreError { refused = true }
                    #expect(refused, "the duplicate insert succeeded")
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

    @Test func aTaskJoiningTheScopeByItsKeyCommitsWithTheScopesNextWrite() async throws {
        try await withStore(.sqlite) { store in
            let queue = store.database("app").collection("queue")
            let outbox = store.database("local").collection("outbox")
            try await queue.insertOne(["_id": 1, "processed": false])
            let ended = try await CarriedInserts.carrying {
                let key = try #require(CarriedInserts.currentKey)
                #expect(CarriedInserts.currentKey == key)
                // A task the scope did not start, as the handler of a loopback request the scope's task sent.
                try await Task.detached {
                    try await CarriedInserts.joining(key) {
                        try await outbox.insertWithNextWrite(["_id": "sent-1"]) {}
                    }
                }.value
                #expect(try await outbox.countDocuments() == 0)
                try await queue.updateOne(["_id": 1], ["$set": ["processed": true]])
                #expect(try await outbox.countDocuments() == 1)
                return key
            }
            // Once the scope ended its key joins nothing: the insert commits at once.
            try await CarriedInserts.joining(ended) {
                try await outbox.insertWithNextWrite(["_id": "after"]) {}
            }
            try await CarriedInserts.joining("no-such-scope") {
                try await outbox.insertWithNextWrite(["_id": "unknown"]) {}
            }
            #expect(try await outbox.countDocuments() == 3)
            #expect(CarriedInserts.currentKey == nil)
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
