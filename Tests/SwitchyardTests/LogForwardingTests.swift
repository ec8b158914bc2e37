import BSON
import DocumentStore
import Synchronization
import TestSupport
import Testing

@testable import Switchyard

/// Log forwarders at work: run records matching a forwarder's types and statuses reach its collection or
/// function, in batches of at most 100, off the runs' path.
@Suite struct LogForwardingTests {
    struct Rejected: Error, CustomStringConvertible {
        var description: String
    }

    /// `work(n)` logs a line and fails for every fifth `n`, naming the secret API key (which the record scrubs).
    static func work(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON {
        let n = arguments.first?.int64Value ?? 0
        context.log("working on \(n)")
        if n % 5 == 0 {
            throw Rejected(description: "rejected \(n) with key \(context.values.get("apiKey")?.stringValue ?? "")")
        }
        return .int64(n)
    }

    static let values = AppValues([("apiKey", .secret(Secret(name: "apiKey", value: "hunter2-key")))])

    static func app(
        _ forwarders: [LogForwarder], registry extra: (inout FunctionRegistry) -> Void = { _ in },
        store: StoreConfiguration = .memory
    ) async throws -> SwitchyardApp {
        var registry = FunctionRegistry()
        registry.register("work", Self.work)
        extra(&registry)
        let configuration = AppConfiguration(
            definition: AppDefinition(logForwarders: forwarders), environment: .development, values: values)
        return try await SwitchyardApp.open(configuration: configuration, registry: registry, store: store)
    }

    /// Calls `work(1...count)`, as a client would.
    static func callWork(_ app: SwitchyardApp, count: Int) async {
        for n in 1...count {
            _ = try? await app.call(function: "work", arguments: [.int64(Int64(n))], user: FunctionUser(id: "u1"))
        }
    }

    static func status(_ app: SwitchyardApp, _ name: String) throws -> LogForwarderStatus {
        try #require(app.logForwarding.statuses.first { $0.forwarder.name == name })
    }

    @Test func batchedRecordsReachTheCollectionFilteredByTypeAndStatus() async throws {
        let app = try await Self.app([
            LogForwarder(
                name: "all", logTypes: [.function], logStatuses: [.error, .success], policy: .batch,
                action: .collection(database: "logs", collection: "all")),
            LogForwarder(
                name: "errors", logTypes: [.function, .trigger], logStatuses: [.error], policy: .batch,
                action: .collection(database: "logs", collection: "errors")),
            LogForwarder(
                name: "triggers", logTypes: [.trigger], logStatuses: [.error, .success], policy: .batch,
                action: .collection(database: "logs", collection: "triggers")),
        ])
        await Self.callWork(app, count: 250)
        await app.logForwarding.flush()

        let logs = app.store.database("logs")
        let all = try await logs.collection("all").find([:]).toArray()
        #expect(all.count == 250)
        let runs = try await app.invocations.records(function: "work", limit: 1000)
        #expect(Set(all.compactMap { $0["_id"]?.objectIdValue }) == Set(runs.map(\.id)))
        let allStatus = try Self.status(app, "all")
        #expect(allStatus.counts.delivered == 250)
        #expect(allStatus.counts.deliveries >= 3)
        #expect(allStatus.counts.failed == 0 && allStatus.counts.dropped == 0 && allStatus.queued == 0)

        let errors = try await logs.collection("errors").find([:]).toArray()
        #expect(errors.count == 50)
        #expect(errors.allSatisfy { $0["status"] == "error" && $0["error_code"] == "FunctionExecutionError" })
        #expect(errors.allSatisfy { $0["error"]?.stringValue?.contains("hunter2-key") == false })
        #expect(errors.first?["error"]?.stringValue?.contains("<secret>") == true)
        #expect(try await logs.collection("triggers").find([:]).toArray().isEmpty)
        #expect(try Self.status(app, "triggers").counts.delivered == 0)

        let first = try #require(all.first { $0["_id"]?.objectIdValue == runs.first?.id })
        #expect(first["type"] == "FUNCTION")
        #expect(first["status"] == "success")
        #expect(first["function_name"] == "work")
        #expect(first["user_id"] == "u1")
        #expect(first["logs"] == .array(["working on 1"]))
        #expect(first["started"] != nil && first["completed"] != nil)
        await app.stop()
    }

    @Test func aTriggerRunIsForwardedAsATriggerLogNamingItsTrigger() async throws {
        var registry = FunctionRegistry()
        registry.register("onItem") { (_: ChangeEvent, context: FunctionContext) in context.log("seen") }
        let definition = AppDefinition(
            triggers: [
                TriggerDefinition(
                    name: "itemAdded", function: "onItem",
                    kind: .database(
                        DatabaseTrigger(scope: .collection(database: "app", collection: "items"), operations: [.insert])
                    ))
            ],
            logForwarders: [
                LogForwarder(
                    name: "triggers", logTypes: [.trigger], logStatuses: [.success],
                    action: .collection(database: "logs", collection: "triggers"))
            ])
        let app = try await SwitchyardApp.inMemory(registry, definition: definition)
        try await app.start()
        try await app.awaitIdle()
        try await app.store.database("app").collection("items").insertOne(["_id": 1])
        try await app.awaitIdle()
        await app.logForwarding.flush()

        let run = try #require(try await app.invocations.records(trigger: "itemAdded").first)
        let forwarded = try await app.store.database("logs").collection("triggers").find([:]).toArray()
        #expect(forwarded.count == 1)
        #expect(forwarded.first?["type"] == "DB_TRIGGER")
        #expect(forwarded.first?["event_subscription_name"] == "itemAdded")
        #expect(forwarded.first?["co_id"] == run.eventId.map { .string($0) })
        #expect(forwarded.first?["logs"] == .array(["seen"]))
        await app.stop()
    }

    @Test func aFunctionActionReceivesTheArrayAndItsOwnRunsAreNotForwarded() async throws {
        let batches = Mutex<[[BSON]]>([])
        let app = try await Self.app(
            [
                LogForwarder(
                    name: "ship", logTypes: [.function], logStatuses: [.error, .success], policy: .batch,
                    action: .function("ship"))
            ],
            registry: { registry in
                registry.register("ship") { (arguments: [BSON], _: FunctionContext) -> BSON in
                    let records = arguments.first?.arrayValue ?? []
                    batches.withLock { $0.append(records) }
                    return .null
                }
            })
        await Self.callWork(app, count: 250)
        await app.logForwarding.flush()

        let received = batches.withLock { $0 }
        // The forwarder's own runs are function runs too: counted here, they would push the total past 250.
        #expect(received.map(\.count).reduce(0, +) == 250)
        #expect(received.allSatisfy { !$0.isEmpty && $0.count <= LogForwarder.maximumBatch })
        let records = received.flatMap { $0 }.compactMap(\.documentValue)
        #expect(records.count == 250)
        #expect(records.allSatisfy { $0["type"] == "FUNCTION" && $0["function_name"] == "work" })
        #expect(records.filter { $0["status"] == "error" }.count == 50)
        #expect(try await app.invocations.records(function: "ship", limit: 1000).count == received.count)
        await app.stop()
    }

    @Test func aFailingActionLeavesTheRunsAloneAndIsReported() async throws {
        let app = try await Self.app(
            [
                LogForwarder(
                    name: "broken", logTypes: [.function], logStatuses: [.success], action: .function("broken"))
            ],
            registry: { registry in
                registry.register("broken") { (_: [BSON], _: FunctionContext) -> BSON in
                    throw Rejected(description: "the log service is down")
                }
            })
        for n in 1...3 {
            #expect(
                try await app.call(function: "work", arguments: [.int64(Int64(n))], user: .system) == .int64(Int64(n)))
        }
        await app.logForwarding.flush()

        let status = try Self.status(app, "broken")
        #expect(status.counts.failed == 3)
        #expect(status.counts.delivered == 0)
        #expect(status.counts.lastError?.contains("the log service is down") == true)
        #expect(status.counts.lastErrorTime != nil)
        // Each record was tried the policy's number of times, every try a recorded run of the forwarder's function.
        let tries = try await app.invocations.records(function: "broken", limit: 1000)
        #expect(tries.count == 3 * LogForwarderQueue.retry.maxAttempts)
        #expect(tries.allSatisfy { $0.outcome == .failure })
        #expect(try await app.invocations.records(function: "work", limit: 1000).allSatisfy { $0.outcome == .success })
        await app.stop()
    }

    @Test func aFullQueueDropsAndCountsNewRecords() async throws {
        let release = DeliveryGate()
        let delivered = Atomic(0)
        let queue = LogForwarderQueue(
            forwarder: LogForwarder(
                name: "slow", logTypes: [.function], logStatuses: [.success], policy: .batch,
                action: .collection(database: "logs", collection: "slow"))
        ) { _, records in
            await release.wait()
            delivered.add(records.count, ordering: .relaxed)
        }
        // The first batch is taken and held by the delivery; the queue fills behind it.
        for n in 0..<LogForwarder.maximumBatch { queue.offer(["n": .int64(Int64(n))]) }
        while queue.status.queued > 0 { await Task.yield() }
        for n in 0..<(LogForwarderQueue.capacity + 7) { queue.offer(["n": .int64(Int64(n))]) }
        #expect(queue.status.queued == LogForwarderQueue.capacity)
        #expect(queue.status.counts.dropped == 7)
        release.open()
        await queue.flush()
        #expect(delivered.load(ordering: .relaxed) == LogForwarder.maximumBatch + LogForwarderQueue.capacity)
        #expect(queue.status.counts.delivered == LogForwarder.maximumBatch + LogForwarderQueue.capacity)
    }

    @Test func aReloadKeepsAnUnchangedForwarderAndStartsANewOne() async throws {
        let kept = LogForwarder(
            name: "kept", logTypes: [.function], logStatuses: [.success],
            action: .collection(database: "logs", collection: "kept"))
        let app = try await Self.app([kept])
        await Self.callWork(app, count: 4)
        await app.logForwarding.flush()
        let added = LogForwarder(
            name: "added", logTypes: [.function], logStatuses: [.error],
            action: .collection(database: "logs", collection: "added"))
        try await app.reload(
            AppConfiguration(
                definition: AppDefinition(logForwarders: [kept, added]), environment: .development, values: Self.values)
        )
        await Self.callWork(app, count: 5)
        await app.logForwarding.flush()

        #expect(try Self.status(app, "kept").counts.delivered == 4 + 4)
        #expect(try Self.status(app, "added").counts.delivered == 1)
        #expect(try await app.store.database("logs").collection("added").find([:]).toArray().count == 1)
        await app.stop()
    }

    @Test func aCleanStopDeliversWhatIsQueued() async throws {
        let directory = try TemporaryDirectory()
        let forwarder = LogForwarder(
            name: "all", logTypes: [.function], logStatuses: [.error, .success], policy: .batch,
            action: .collection(database: "logs", collection: "all"))
        let app = try await Self.app([forwarder], store: .sqlite(directory: directory.path))
        await Self.callWork(app, count: 7)
        // A partial batch waits a second for more; stopping delivers it at once, before the store closes.
        await app.stop()

        let store = try await DocumentStore.open(.sqlite(directory: directory.path))
        #expect(try await store.database("logs").collection("all").find([:]).toArray().count == 7)
        await store.close()
    }
}

/// Holds its waiters until opened.
final class DeliveryGate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
