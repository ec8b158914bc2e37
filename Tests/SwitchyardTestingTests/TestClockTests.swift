import BSON
import DocumentStore
import Foundation
import Switchyard
import SwitchyardTesting
import Testing

/// `app.clock`: schedules and retries run when a test moves the clock, never by waiting for real time.
@Suite struct TestClockTests {
    private static let triggers = """
        triggers:
          - name: everyMinute
            type: scheduled
            function: tick
            schedule: "* * * * *"
          - name: onOrder
            type: database
            function: flaky
            database: app
            collection: orders
            operations: [INSERT]
            retry: {maxAttempts: 3, initialBackoff: 10s, maxBackoff: 1m}
          - name: perDocument
            type: database
            function: failsTwiceForOne
            database: app
            collection: parcels
            operations: [INSERT, UPDATE]
            ordered: byDocumentKey
            maxConcurrency: 1
            retry: {maxAttempts: 3, initialBackoff: 10s, maxBackoff: 1m}
          - name: onBox
            type: database
            function: refuseBox
            database: app
            collection: boxes
            operations: [INSERT]
            retry: {maxAttempts: 1}
            onSuspend: recordSuspension
        """

    /// `tick` records its fire time; `flaky` fails until it has been called three times for an order.
    private static var registry: FunctionRegistry {
        var registry = FunctionRegistry()
        registry.register("tick") { (event: ScheduledEvent, context: FunctionContext) in
            try await context.services.mongodb().db("app").collection("ticks").insertOne([
                "at": .datetime(BSONDate(event.scheduledTime))
            ])
        }
        registry.register("flaky") { (event: ChangeEvent, context: FunctionContext) in
            let attempts = try context.services.mongodb().db("app").collection("attempts")
            try await attempts.insertOne(["order": event.documentKey?["_id"] ?? .null])
            if try await attempts.countDocuments([:]) < 3 { throw TestAppError("not yet") }
        }
        // Records each delivery that succeeded, after failing the first two attempts at parcel 1's insert.
        registry.register("failsTwiceForOne") { (event: ChangeEvent, context: FunctionContext) in
            let app = try context.services.mongodb().db("app")
            let id = event.documentKey?["_id"] ?? .null
            if id == 1, event.operationType == .insert {
                try await app.collection("parcelAttempts").insertOne([:])
                if try await app.collection("parcelAttempts").countDocuments([:]) < 3 { throw TestAppError("not yet") }
            }
            try await app.collection("deliveries").insertOne([
                "parcel": id, "operation": .string(event.operationType.rawValue),
            ])
        }
        registry.register("refuseBox") { (_: ChangeEvent, _: FunctionContext) in throw TestAppError("no room") }
        registry.register("recordSuspension") { (arguments: [BSON], context: FunctionContext) -> BSON in
            guard case .document(let suspension)? = arguments.first else { throw TestAppError("no suspension") }
            try await context.services.mongodb().db("app").collection("suspensions").insertOne(suspension)
            return .null
        }
        return registry
    }

    private func run(at start: Date, _ body: (TestApp) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("testclock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(Self.triggers.utf8).write(to: directory.appendingPathComponent("triggers.yaml"))
        try Data("{}".utf8).write(to: directory.appendingPathComponent("values.json"))
        try await TestApp.withApp(
            configDirectory: directory.path, registry: Self.registry, clock: TestClock(now: start), body)
    }

    @Test func advancingFiveMinutesFiresAnEveryMinuteScheduleFiveTimesInOrder() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_030)  // 30 s past a minute
        try await run(at: start) { app in
            try await app.awaitIdle()
            #expect(try await app.collection("app.ticks").countDocuments([:]) == 0, "fired before the clock moved")
            try await app.clock.advance(by: .minutes(5))
            let ticks = try await app.collection("app.ticks").find().toArray().compactMap { tick -> Date? in
                guard case .datetime(let at) = tick["at"] else { return nil }
                return at.date
            }
            #expect(ticks == (1...5).map { Date(timeIntervalSince1970: 1_800_000_000 + Double($0) * 60) })
            #expect(app.clock.now() == start.addingTimeInterval(300))
            try await app.clock.advance(by: .seconds(29))
            #expect(try await app.collection("app.ticks").countDocuments([:]) == 5)
            try await app.clock.advance(by: .seconds(1))
            #expect(try await app.collection("app.ticks").countDocuments([:]) == 6)
        }
    }

    @Test func aRetriedFunctionSucceedsOnceTheClockPassesItsBackoffs() async throws {
        try await run(at: Date(timeIntervalSince1970: 1_800_000_030)) { app in
            try await app.collection("app.orders").insertOne(["_id": 1])
            try await app.awaitIdle()
            // The first attempt failed; the retry waits for the clock (up to 10 s of backoff).
            #expect(try await app.invocations(trigger: "onOrder").map(\.outcome) == [.failure])
            try await app.clock.advance(by: .minutes(1))
            #expect(try await app.invocations(trigger: "onOrder").map(\.outcome) == [.failure, .failure, .success])
            #expect(try await app.collection("app.attempts").countDocuments([:]) == 3)
        }
    }

    /// Parcel 1's update queues behind its insert, which waits out a retry, and parcel 2's insert waits for the
    /// one slot: none of them runs until the clock moves, so the app is idle (awaitIdle hung here before).
    @Test(.timeLimit(.minutes(1))) func awaitIdleReturnsWhileEventsWaitBehindARetriedDocument() async throws {
        try await run(at: Date(timeIntervalSince1970: 1_800_000_030)) { app in
            let parcels = try app.collection("app.parcels")
            try await parcels.insertOne(["_id": 1])
            try await parcels.updateOne(["_id": 1], ["$set": ["sent": true]])
            try await parcels.insertOne(["_id": 2])
            try await app.awaitIdle()
            #expect(try await app.invocations(trigger: "perDocument").map(\.outcome) == [.failure])
            #expect(try await app.collection("app.deliveries").countDocuments([:]) == 0)

            try await app.clock.advance(by: .minutes(1))
            let deliveries = try await app.collection("app.deliveries").find(options: FindOptions(sort: ["_id": 1]))
                .toArray().map { delivery in
                    "\(delivery["parcel"]?.int64Value ?? -1) \(delivery["operation"]?.stringValue ?? "")"
                }
            #expect(deliveries == ["1 insert", "1 update", "2 insert"])
        }
    }

    /// A trigger that suspends tells its `onSuspend` function why, and `awaitIdle` waits for it.
    @Test func aSuspendedTriggerCallsItsOnSuspendFunction() async throws {
        try await run(at: Date(timeIntervalSince1970: 1_800_000_030)) { app in
            try await app.collection("app.boxes").insertOne(["_id": 1])
            try await app.awaitIdle()
            let suspensions = try await app.collection("app.suspensions").find().toArray()
            #expect(suspensions.count == 1)
            let suspension = try #require(suspensions.first)
            #expect(suspension["trigger"] == "onBox")
            #expect(suspension["type"] == "database")
            #expect(suspension["function"] == "refuseBox")
            #expect(suspension["reason"]?.stringValue?.hasPrefix("function refuseBox failed 1 times: ") == true)
            #expect(suspension["failedEventId"]?.stringValue != nil)
            #expect(suspension["time"] == .datetime(BSONDate(app.clock.now())))
            #expect(suspension["resumesWhenStorageReturns"] == false)
            #expect(try await app.invocations(function: "recordSuspension").map(\.trigger) == ["onBox"])
            // A suspension asked for is no news: it tells no one.
            try await app.app.triggers.resume(trigger: "onBox", from: .now)
            try await app.app.triggers.suspend(trigger: "onBox")
            try await app.awaitIdle()
            #expect(try await app.collection("app.suspensions").countDocuments([:]) == 1)
        }
    }

    /// Heartbeat, cluster time and lag, read on the test clock: a caught-up trigger beats now and lags 0; a
    /// suspended one has no heartbeat, and its pending event ages as the clock moves.
    @Test func theStatusTellsHeartbeatClusterTimeAndLag() async throws {
        try await run(at: Date()) { app in
            let triggers = app.app.triggers
            try await app.collection("app.parcels").insertOne(["_id": 5])
            try await app.awaitIdle()
            var status = try await triggers.status(of: "perDocument")
            #expect(status.ordering == .byDocumentKey(maxConcurrency: 1))
            #expect(status.heartbeat == app.clock.now())
            #expect(status.lastClusterTime != nil)
            #expect(status.lagSeconds == 0)
            #expect(status.pendingLogEntries == 0)
            #expect(try await triggers.status(of: "everyMinute").heartbeat == app.clock.now())
            #expect(try await triggers.status(of: "everyMinute").ordering == nil)

            try await triggers.suspend(trigger: "perDocument")
            try await app.collection("app.parcels").insertOne(["_id": 6])
            try await app.clock.advance(by: .minutes(10))
            status = try await triggers.status(of: "perDocument")
            #expect(status.heartbeat == nil)
            #expect(status.pendingLogEntries == 1)
            // The event was written after the clock's start, at most ten minutes before its now.
            let lag = try #require(status.lagSeconds)
            #expect(lag > 0 && lag <= 600)
        }
    }
}
