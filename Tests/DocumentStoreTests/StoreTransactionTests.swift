import BSON
import Foundation
import Testing

@testable import DocumentStore

/// Multi-statement transactions: all or nothing, their own writes visible inside, their events published at the
/// commit with the transaction's fields, other writers waiting behind them, and an end at the lifetime limit.
@Suite struct StoreTransactionTests {
    static let fields: BSONDocument = ["lsid": ["id": "session-1"], "txnNumber": .int64(4)]

    @Test(arguments: EngineKind.allCases) func commitPublishesEveryWriteWithTheTransactionsFields(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let accounts = store.database("bank").collection("accounts")
            try await accounts.insertOne(["_id": "ann", "balance": 10])
            let stream = try await accounts.watch()
            let transaction = try await store.startTransaction(eventFields: Self.fields, lifetime: .seconds(60))
            let inside = try await transaction.run {
                try await accounts.updateOne(["_id": "ann"], ["$inc": ["balance": -4]])
                try await accounts.insertOne(["_id": "ben", "balance": 4])
                return try await accounts.find([:], options: FindOptions(sort: ["_id": 1])).toArray()
            }
            #expect(inside.map { $0["balance"] } == [.int32(6), .int32(4)])
            if kind == .sqlite {
                // Read connections do not wait for the writer: they see what was committed before it.
                #expect(try await accounts.find().toArray().map { $0["balance"] } == [.int32(10)])
            }
            try await transaction.commit()
            #expect(transaction.currentState == .committed)
            #expect(try await accounts.countDocuments() == 2)
            try await accounts.insertOne(["_id": "cat", "balance": 0])
            let events = try await next(3, from: stream)
            #expect(events.map(\.operationType) == [.update, .insert, .insert])
            for event in events.prefix(2) {
                #expect(event.raw["lsid"] == Self.fields["lsid"])
                #expect(event.raw["txnNumber"] == .int64(4))
            }
            // As MongoDB's: the events of one transaction share its cluster time, and a later write's is later.
            let times = events.compactMap(\.clusterTime)
            #expect(times.count == 3)
            #expect(times[0] == times[1])
            #expect(times[2] > times[1])
            #expect(events[2].raw["lsid"] == nil)
        }
    }

    @Test(arguments: EngineKind.allCases) func abortLeavesNothingBehind(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let items = store.database("shop").collection("items")
            try await items.insertOne(["_id": 1])
            let transaction = try await store.startTransaction(lifetime: .seconds(60))
            try await transaction.run {
                try await items.insertOne(["_id": 2])
                try await items.deleteOne(["_id": 1])
                try await store.database("shop").collection("fresh").insertOne(["_id": 1])
            }
            await transaction.abort()
            #expect(transaction.currentState == .aborted)
            #expect(try await items.find().toArray() == [["_id": 1]])
            #expect(try await store.database("shop").listCollectionNames() == ["items"])
            await #expect(throws: StoreError.self) {
                try await transaction.run { try await items.insertOne(["_id": 3]) }
            }
        }
    }

    /// A failing statement undoes only itself: the transaction goes on and commits the rest.
    @Test(arguments: EngineKind.allCases) func failingStatementUndoesOnlyItself(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let items = store.database("shop").collection("items")
            let transaction = try await store.startTransaction(lifetime: .seconds(60))
            try await transaction.run {
                try await items.insertOne(["_id": 1])
                await #expect(throws: StoreError.self) {
                    try await items.updateOne(["_id": 1], ["$set": ["n": 1], "$unset": ["n": ""]])
                }
                try await items.insertOne(["_id": 2])
            }
            try await transaction.commit()
            #expect(try await items.find().toArray() == [["_id": 1], ["_id": 2]])
        }
    }

    /// A write from outside waits for the transaction's commit: its event comes after all of the transaction's.
    @Test(arguments: EngineKind.allCases) func otherWritersWaitForTheCommit(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let items = store.database("shop").collection("items")
            let stream = try await items.watch()
            let transaction = try await store.startTransaction(lifetime: .seconds(60))
            try await transaction.run { try await items.insertOne(["_id": "first"]) }
            let outside = Task { try await items.insertOne(["_id": "outside"]) }
            try await transaction.run { try await items.insertOne(["_id": "second"]) }
            try await transaction.commit()
            _ = try await outside.value
            let keys = try await next(3, from: stream).map { $0.documentKey?["_id"] }
            #expect(keys == [.string("first"), .string("second"), .string("outside")])
        }
    }

    @Test(arguments: EngineKind.allCases) func transactionPastItsLifetimeIsAborted(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let items = store.database("shop").collection("items")
            let transaction = try await store.startTransaction(lifetime: .milliseconds(500))
            // Refused when the limit passed first (a loaded machine): either way nothing of it stays.
            _ = try? await transaction.run { try await items.insertOne(["_id": "held"]) }
            // Waits for the writer, which the transaction gives up at its limit.
            try await items.insertOne(["_id": "waiting"])
            #expect(transaction.currentState == .expired)
            let error = await #expect(throws: StoreError.self) { try await transaction.commit() }
            #expect(error?.code.rawValue == 251)
            #expect(try await items.find().toArray() == [["_id": "waiting"]])
        }
    }

    @Test func closingTheStoreAbortsItsTransaction() async throws {
        let directory = TemporaryDirectory()
        let config = try await configuration(.sqlite, directory: directory)
        let store = try await DocumentStore.open(config)
        let transaction = try await store.startTransaction(lifetime: .seconds(60))
        try await transaction.run { try await store.database("a").collection("b").insertOne(["_id": 1]) }
        await store.close()
        #expect(transaction.currentState == .aborted)
        let reopened = try await DocumentStore.open(config)
        #expect(try await reopened.database("a").collection("b").countDocuments() == 0)
        await reopened.close()
    }
}
