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
}
