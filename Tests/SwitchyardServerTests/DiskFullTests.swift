import BSON
import DocumentStore
import Foundation
import Switchyard
import Synchronization
import TestSupport
import Testing

/// A store on a real filesystem that fills up: the client API answers 507 `OutOfDiskSpace` (a server failure, not
/// the client's) to writes, logins and function calls, never with a path of the data directory, and serves again
/// once space is freed.
@Suite(.timeLimit(.minutes(2))) struct DiskFullTests {
    @Test(.enabled(if: SmallFilesystem.canMount, "mounting a tmpfs needs root"))
    func writesAndLoginsAnswer507WithoutPathsAndRecoverWhenSpaceReturns() async throws {
        let disk = try SmallFilesystem(megabytes: 4)
        let data = disk.path + "/data"
        try await ServedApp.with(FunctionRegistry(), store: .sqlite(directory: data)) { served in
            let token = try await served.loginAnonymously().accessToken
            let ns = #""database": "shop", "collection": "items""#
            let filler = disk.fill()

            let login = try await served.post(
                "\(served.appBase)/auth/providers/anon-user/login", #"{"provider": "anon-user"}"#)
            #expect(login.status == 507, "\(login.text)")
            #expect(login.errorCode == "OutOfDiskSpace")
            #expect(!login.text.contains(disk.path), "\(login.text)")
            let insert = try await served.call(
                "insertOne",
                #"[{\#(ns), "document": {"_id": 1, "text": "\#(String(repeating: "x", count: 20_000))"}}]"#,
                service: "mongodb-atlas", token: token)
            #expect(insert.status == 507, "\(insert.text)")
            #expect(insert.errorCode == "OutOfDiskSpace")
            #expect(!insert.text.contains(disk.path), "\(insert.text)")

            disk.free(filler)
            #expect(try await served.loginAnonymously().userId.isEmpty == false)
            let inserted = try await served.atlas("insertOne", #"{\#(ns), "document": {"_id": 1}}"#, token: token)
            #expect(inserted == ["insertedId": .int32(1)])
        }
    }

    @Test(.enabled(if: SmallFilesystem.canMount, "mounting a tmpfs needs root"))
    func aFunctionCallThatMeetsTheFullDiskAnswers507WithoutPaths() async throws {
        let disk = try SmallFilesystem(megabytes: 4)
        var registry = FunctionRegistry()
        registry.register("addItem") { (arguments: [BSON], context: FunctionContext) -> BSON in
            let id = arguments.first ?? .null
            _ = try await context.services.mongodb().db("shop").collection("items").insertOne([
                "_id": id, "text": .string(String(repeating: "x", count: 20_000)),
            ])
            return id
        }
        try await ServedApp.with(registry, store: .sqlite(directory: disk.path + "/data")) { served in
            let token = try await served.loginAnonymously().accessToken
            let filler = disk.fill()

            let call = try await served.call("addItem", #"[{"$numberInt": "1"}]"#, token: token)
            #expect(call.status == 507, "\(call.text)")
            #expect(call.errorCode == "OutOfDiskSpace")
            #expect(!call.text.contains(disk.path), "\(call.text)")

            disk.free(filler)
            let retried = try await served.call("addItem", #"[{"$numberInt": "1"}]"#, token: token)
            #expect(retried.status == 200, "\(retried.text)")
        }
    }
}

/// Triggers and the invocation log on a disk that fills up and is freed again: a trigger whose function meets the
/// full disk (ordered, unordered or scheduled) is suspended for storage and resumes by itself, delivering every event
/// committed before (or running the scheduled run again), also across a restart meanwhile; a suspension
/// for another cause is saved once space returns, so a restart remembers it; the records of the runs during the
/// fault are written once space returns.
@Suite(.timeLimit(.minutes(2))) struct DiskFullTriggerTests {
    static let items = #""database": "shop", "collection": "items""#
    static let text = String(repeating: "x", count: 20_000)

    /// Ordered and unordered triggers alike wait out the full disk and deliver every event committed before it.
    @Test(
        .enabled(if: SmallFilesystem.canMount, "mounting a tmpfs needs root"),
        arguments: [DeliveryOrder.ordered, .unordered(maxConcurrency: 3)])
    func aTriggerSuspendedByTheFullDiskResumesByItselfAndDeliversEveryEvent(delivery: DeliveryOrder) async throws {
        let disk = try SmallFilesystem(megabytes: 4)
        let gate = Gate()
        var registry = FunctionRegistry()
        registry.register("copy") { (event: ChangeEvent, context: FunctionContext) in
            await gate.wait()
            guard let document = event.fullDocument, let id = document["_id"] else { return }
            _ = try await context.services.mongodb().db("shop").collection("copies").replaceOne(
                ["_id": id], document, upsert: true)
        }
        try await ServedApp.with(
            registry, definition: AppDefinition(triggers: [Self.trigger("copy", function: "copy", delivery: delivery)]),
            store: .sqlite(directory: disk.path + "/data"), triggers: Self.quickStorageRetry
        ) { served in
            let token = try await served.loginAnonymously().accessToken
            for id in 1...5 {
                _ = try await served.atlas(
                    "insertOne", #"{\#(Self.items), "document": {"_id": \#(id), "text": "\#(Self.text)"}}"#,
                    token: token)
            }
            let filler = disk.fill()
            gate.open()
            let suspended = try await Self.status(of: "copy", served) { $0["state"] == "suspended" }
            let suspension = try #require(suspended["suspension"]?.documentValue)
            #expect(suspension["code"]?.int64Value == 14_031)
            #expect(suspension["resumesWhenStorageReturns"] == true)
            #expect(suspension["reason"]?.stringValue?.contains("disk holding the data directory is full") == true)
            #expect(!suspended.extendedJSON(mode: .relaxed).contains(disk.path))
            let table = TriggerStatus.table(try await served.app.triggers.statuses()).joined(separator: "\n")
            #expect(table.contains("resumes when storage returns"), "\(table)")

            disk.free(filler)
            let resumed = try await Self.status(of: "copy", served) {
                $0["state"] == "running" && $0["pendingLogEntries"]?.int64Value == 0
            }
            #expect(resumed["suspension"] == nil)
            #expect(resumed["deadLettered"]?.int64Value == 0)
            try await served.app.awaitIdle()
            let copies = try await served.app.store.database("shop").collection("copies").find().toArray()
            #expect(copies.compactMap { $0["_id"]?.int64Value }.sorted() == [1, 2, 3, 4, 5])
        }
    }

    @Test(.enabled(if: SmallFilesystem.canMount, "mounting a tmpfs needs root"))
    func aSuspensionMetOnTheFullDiskIsSavedWhenSpaceReturnsAndOutlivesARestart() async throws {
        let disk = try SmallFilesystem(megabytes: 4)
        let gate = Gate()
        var registry = FunctionRegistry()
        registry.register("refuse") { (_: ChangeEvent, _: FunctionContext) in
            await gate.wait()
            throw ShopClosed()
        }
        let definition = AppDefinition(triggers: [Self.trigger("refusing", function: "refuse")])
        let store = StoreConfiguration.sqlite(directory: disk.path + "/data")
        try await ServedApp.with(registry, definition: definition, store: store, triggers: Self.quickStorageRetry) {
            served in
            let token = try await served.loginAnonymously().accessToken
            _ = try await served.atlas(
                "insertOne", #"{\#(Self.items), "document": {"_id": 1, "text": "\#(Self.text)"}}"#, token: token)
            let filler = disk.fill()
            gate.open()
            let suspended = try await Self.status(of: "refusing", served) { $0["state"] == "suspended" }
            // SQLite writes a small change into WAL space a checkpoint freed, so the save can succeed on a full disk;
            // when it did not, the status says the suspension is held in memory only.
            #expect(suspended["inMemoryOnly"]?.boolValue != nil)
            #expect(suspended["suspension"]?.documentValue?["resumesWhenStorageReturns"] == false)
            #expect(
                suspended["suspension"]?.documentValue?["reason"]?.stringValue?.contains("the shop is closed") == true)

            disk.free(filler)
            _ = try await Self.status(of: "refusing", served) { $0["inMemoryOnly"] == false }
            let invocations = try await served.get(
                served.server.http.baseURL + "/admin/v1/invocations?trigger=refusing",
                token: served.server.adminToken.value)
            let records = try #require(invocations.document?["invocations"]?.arrayValue)
            // Both attempts, made while the disk was full.
            #expect(records.count == 2, "\(invocations.text)")
            for record in records.compactMap(\.documentValue) {
                #expect(record["outcome"] == "failure")
                #expect(record["error"]?.stringValue?.contains("the shop is closed") == true)
            }
        }
        try await ServedApp.with(registry, definition: definition, store: store) { served in
            let restarted = try await Self.status(of: "refusing", served) { _ in true }
            #expect(restarted["state"] == "suspended")
            #expect(
                restarted["suspension"]?.documentValue?["reason"]?.stringValue?.contains("the shop is closed") == true)
        }
    }

    @Test(.enabled(if: SmallFilesystem.canMount, "mounting a tmpfs needs root"))
    func aScheduledRunThatMeetsTheFullDiskRunsOnceSpaceReturns() async throws {
        let disk = try SmallFilesystem(megabytes: 4)
        let clock = ShiftedClock()
        var registry = FunctionRegistry()
        registry.register("tick") { (event: ScheduledEvent, context: FunctionContext) in
            _ = try await context.services.mongodb().db("shop").collection("ticks").insertOne([
                "_id": .double(event.scheduledTime.timeIntervalSince1970), "text": .string(Self.text),
            ])
        }
        let tick = TriggerDefinition(
            name: "tick", function: "tick", kind: .scheduled(ScheduledTrigger(schedule: try CronSchedule("* * * * *"))))
        var triggers = Self.quickStorageRetry
        triggers.clock = clock
        triggers.retry = RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(1))
        try await ServedApp.with(
            registry, definition: AppDefinition(triggers: [tick]), store: .sqlite(directory: disk.path + "/data"),
            triggers: triggers
        ) { served in
            _ = try await Self.status(of: "tick", served) { $0["state"] == "running" }
            let filler = disk.fill()
            clock.advance(by: 60)
            let suspended = try await Self.status(of: "tick", served) { $0["state"] == "suspended" }
            let suspension = try #require(suspended["suspension"]?.documentValue)
            #expect(suspension["code"]?.int64Value == 14_031)
            #expect(suspension["resumesWhenStorageReturns"] == true)
            #expect(suspension["reason"]?.stringValue?.contains("disk holding the data directory is full") == true)
            #expect(!suspended.extendedJSON(mode: .relaxed).contains(disk.path))

            disk.free(filler)
            let resumed = try await Self.status(of: "tick", served) {
                $0["state"] == "running" && ($0["processed"]?.int64Value ?? 0) >= 1
            }
            #expect(resumed["suspension"] == nil)
            #expect(resumed["deadLettered"]?.int64Value == 0)
            let ticks = try await served.app.store.database("shop").collection("ticks").find().toArray()
            #expect(!ticks.isEmpty)
        }
    }

    @Test(.enabled(if: SmallFilesystem.canMount, "mounting a tmpfs needs root"))
    func aTriggerSuspendedForStorageAtARestartResumesOnceSpaceReturns() async throws {
        let disk = try SmallFilesystem(megabytes: 8)
        let gate = Gate()
        var registry = FunctionRegistry()
        // A copy far larger than the space left, so the function fails while the trigger's small state is saved.
        registry.register("copyLarge") { (event: ChangeEvent, context: FunctionContext) in
            await gate.wait()
            guard let id = event.fullDocument?["_id"] else { return }
            _ = try await context.services.mongodb().db("shop").collection("copies").replaceOne(
                ["_id": id], ["_id": id, "text": .string(String(repeating: "y", count: 1_000_000))], upsert: true)
        }
        let definition = AppDefinition(triggers: [Self.trigger("copy", function: "copyLarge")])
        let store = StoreConfiguration.sqlite(directory: disk.path + "/data")
        // Storage is not tried again before the restart.
        let patient = TriggerRuntimeConfiguration(
            storageRetry: RetryPolicy(initialBackoff: .seconds(3_600), maxBackoff: .seconds(3_600)))
        let reserve = disk.path + "/reserve"
        let filler = try await ServedApp.with(registry, definition: definition, store: store, triggers: patient) {
            served in
            let token = try await served.loginAnonymously().accessToken
            for id in 1...2 {
                _ = try await served.atlas("insertOne", #"{\#(Self.items), "document": {"_id": \#(id)}}"#, token: token)
            }
            #expect(FileManager.default.createFile(atPath: reserve, contents: Data(count: 256 * 1024)))
            let filler = disk.fill()
            disk.free(reserve)
            gate.open()
            let suspended = try await Self.status(of: "copy", served) {
                $0["state"] == "suspended" && $0["inMemoryOnly"] == false
            }
            #expect(suspended["suspension"]?.documentValue?["resumesWhenStorageReturns"] == true)
            return filler
        }
        disk.free(filler)
        try await ServedApp.with(registry, definition: definition, store: store, triggers: Self.quickStorageRetry) {
            served in
            let resumed = try await Self.status(of: "copy", served) {
                $0["state"] == "running" && $0["pendingLogEntries"]?.int64Value == 0
            }
            #expect(resumed["suspension"] == nil)
            try await served.app.awaitIdle()
            let copies = try await served.app.store.database("shop").collection("copies").find().toArray()
            #expect(copies.compactMap { $0["_id"]?.int64Value }.sorted() == [1, 2])
        }
    }

    /// Storage tried again soon, so the tests wait for space to return rather than for a backoff.
    static let quickStorageRetry = TriggerRuntimeConfiguration(
        storageRetry: RetryPolicy(initialBackoff: .milliseconds(20), maxBackoff: .milliseconds(200)))

    /// A trigger on `shop.items` inserts (ordered unless `delivery` says otherwise) that gives up after two quick
    /// attempts.
    static func trigger(
        _ name: String, function: String, delivery: DeliveryOrder = .ordered
    ) -> TriggerDefinition {
        TriggerDefinition(
            name: name, function: function,
            kind: .database(
                DatabaseTrigger(
                    scope: .collection(database: "shop", collection: "items"), operations: [.insert],
                    fullDocument: true, delivery: delivery,
                    retry: RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(1))))
        )
    }

    /// The trigger's status from the admin API, once `ready` holds for it (asked again until it does).
    static func status(of trigger: String, _ served: ServedApp, until ready: (BSONDocument) -> Bool) async throws
        -> BSONDocument
    {
        while true {
            let response = try await served.get(
                served.server.http.baseURL + "/admin/v1/triggers/\(trigger)", token: served.server.adminToken.value)
            let status = try #require(response.document, "\(response.status) \(response.text)")
            if ready(status) { return status }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Holds functions back until opened.
    final class Gate: Sendable {
        private let state = Mutex<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let isOpen = state.withLock { state -> Bool in
                    if !state.isOpen { state.waiting.append(continuation) }
                    return state.isOpen
                }
                if isOpen { continuation.resume() }
            }
        }

        func open() {
            for continuation in state.withLock({ state in
                state.isOpen = true
                defer { state.waiting = [] }
                return state.waiting
            }) { continuation.resume() }
        }
    }

    struct ShopClosed: Error, CustomStringConvertible {
        var description: String { "the shop is closed" }
    }
}
