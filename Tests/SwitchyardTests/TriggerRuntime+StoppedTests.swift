import BSON
import DocumentStore
import Testing

@testable import Switchyard

@Suite struct TriggerRuntimeStoppedTests {
    /// A trigger suspended by request after its first event, then a second event while suspended and the
    /// runtime stopped: what `switchyard resume` finds.
    func suspendedWithOnePendingEvent(_ store: DocumentStore, log: DeliveryLog) async throws -> TriggerRuntime {
        let runtime = TriggerRuntime(store: store, definitions: [databaseTrigger("t")]) { log.record($0) }
        try await runtime.start()
        let books = store.database("app").collection("books")
        try await books.insertOne(["_id": 1])
        try await runtime.awaitIdle()
        try await runtime.suspend(trigger: "t")
        try await books.insertOne(["_id": 2])
        await runtime.stop()
        return runtime
    }

    @Test(arguments: [false, true]) func resumesFromTheSavedStateWhileStopped(skip: Bool) async throws {
        try await withStore(.sqlite) { store, _ in
            let log = DeliveryLog()
            _ = try await suspendedWithOnePendingEvent(store, log: log)

            let offline = TriggerRuntime(store: store, definitions: [databaseTrigger("t")]) { log.record($0) }
            let before = try await offline.statuses()
            #expect(before.map(\.state) == [.suspended])
            let table = TriggerStatus.table(before)
            #expect(table.count == 4)
            #expect(
                table[0].hasPrefix(
                    "NAME  TYPE      ORDER    FUNCTION  STATE      PROCESSED  FAILED  DEAD  PENDING  LAG  LAST EVENT"))
            #expect(
                table[1].hasPrefix("t     database  ordered  onChange  suspended  1          0       0     1        "))
            #expect(table[2].hasPrefix("  suspended since ") && table[2].hasSuffix(": suspended by request"))
            // Stopped, it has no heartbeat; the cluster time of its first event is saved.
            #expect(table[3].hasPrefix("  processed through cluster time Timestamp("))

            try await offline.resumeSaved(trigger: "t", from: skip ? .now : .savedToken)
            await #expect(throws: TriggerRuntimeError(code: .invalidState, message: "trigger 't' is not suspended")) {
                try await offline.resumeSaved(trigger: "t", from: .savedToken)
            }
            await #expect(throws: TriggerRuntimeError.self) { try await offline.resumeSaved(trigger: "x", from: .now) }
            #expect(try await offline.statuses().map(\.state) == [.stopped])

            // The next start delivers the event written while suspended, unless resumed with a skip.
            try await offline.start()
            try await offline.awaitIdle()
            await offline.stop()
            #expect(log.keys("t") == (skip ? [1] : [1, 2]))
        }
    }
}
