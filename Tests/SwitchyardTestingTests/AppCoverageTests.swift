import BSON
import DocumentStore
import Foundation
import Switchyard
import SwitchyardTesting
import Synchronization
import Testing

/// `TestApp.coverage` and `.coverageReport`: which triggers and functions a test exercised.
@Suite struct AppCoverageTests {
    private static let triggers = """
        triggers:
          - name: onNote
            type: database
            function: recordNote
            database: app
            collection: notes
            operations: [INSERT]
          - name: newYear
            type: scheduled
            function: tick
            schedule: "0 0 1 1 *"
          - name: onSignUp
            type: authentication
            function: welcome
            operation: create
            providers: [local-userpass]
        """

    private static var registry: FunctionRegistry {
        var registry = FunctionRegistry()
        registry.register("recordNote") { (_: ChangeEvent, context: FunctionContext) in
            _ = try await context.functions.execute("stamp")
        }
        registry.register("tick") { (_: ScheduledEvent, _: FunctionContext) in }
        registry.register("welcome") { (_: AuthEvent, _: FunctionContext) in }
        registry.register("stamp") { (_: [BSON], _: FunctionContext) in .bool(true) }
        registry.register("summarize") { (_: [BSON], context: FunctionContext) in
            try await context.functions.execute("stamp")
        }
        registry.register("refuse") { (_: [BSON], _: FunctionContext) -> BSON in throw TestAppError("refused") }
        registry.register("unused") { (_: [BSON], _: FunctionContext) in .null }
        return registry
    }

    private func start() async throws -> TestApp {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coverage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(Self.triggers.utf8).write(to: directory.appendingPathComponent("triggers.yaml"))
        try Data("{}".utf8).write(to: directory.appendingPathComponent("values.json"))
        return try await TestApp.start(configDirectory: directory.path, registry: Self.registry)
    }

    @Test func countsTriggerRunsFunctionCallsAndFailures() async throws {
        let app = try await start()
        defer { Task { await app.stop() } }
        try await app.collection("app.notes").insertOne(["_id": 1])
        try await app.collection("app.notes").insertOne(["_id": 2])
        try await app.awaitIdle()
        _ = try await app.call("summarize", as: FunctionUser(id: "u1"))
        await #expect(throws: (any Error).self) { try await app.call("refuse", as: FunctionUser(id: "u1")) }

        let coverage = app.coverage
        #expect(coverage[trigger: "onNote"] == AppCoverage.Entry(name: "onNote", runs: 2))
        #expect(coverage.unexercisedTriggers == ["newYear", "onSignUp"])
        #expect(coverage[function: "recordNote"]?.runs == 2)
        // Called by both runs of recordNote and by summarize.
        #expect(coverage[function: "stamp"]?.runs == 3)
        #expect(coverage[function: "refuse"] == AppCoverage.Entry(name: "refuse", runs: 1, failures: 1))
        #expect(coverage.unexercisedFunctions == ["tick", "unused", "welcome"])
        let report = coverage.description
        #expect(report.hasPrefix("triggers 1 of 3 (33%), functions 4 of 7 (57%)"))
        #expect(report.contains { $0 == "\n" })
        #expect(report.split(separator: "\n").contains { $0.contains("refuse") && $0.hasSuffix("1 run, 1 failed") })
        #expect(report.split(separator: "\n").contains { $0.contains("newYear") && $0.hasSuffix("not run") })
    }

    @Test func aFiredSyntheticEventAndAClockTickCount() async throws {
        let app = try await start()
        defer { Task { await app.stop() } }
        try await app.fire("onNote", event: .insert(["_id": 9]))
        try await app.clock.advance(to: Self.nextNewYear(after: app.clock.now()))
        #expect(app.coverage[trigger: "onNote"]?.runs == 1)
        #expect(app.coverage[trigger: "newYear"]?.runs == 1)
        #expect(app.coverage.unexercisedTriggers == ["onSignUp"])
    }

    @Test func theReportMergesEveryAppStartedInItsScope() async throws {
        let reports = Mutex<[String]>([])
        let trait = CoverageReport { line in reports.withLock { $0.append(line) } }
        let test = try #require(Test.current)
        try await trait.provideScope(for: test, testCase: nil) {
            let first = try await start()
            try await first.collection("app.notes").insertOne(["_id": 1])
            try await first.awaitIdle()
            await first.stop()
            let second = try await start()
            _ = try await second.call("summarize", as: FunctionUser(id: "u1"))
            await second.stop()
        }
        let printed = reports.withLock { $0 }
        #expect(printed.count == 1)
        let report = try #require(printed.first)
        #expect(report.hasPrefix("Switchyard coverage of \(test.name): triggers 1 of 3 (33%), functions 3 of 7 (42%)"))
        #expect(report.split(separator: "\n").contains { $0.contains("stamp") && $0.hasSuffix("2 runs") })
    }

    /// The next 1 January, 00:00 UTC after `date`.
    private static func nextNewYear(after date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let year = calendar.component(.year, from: date)
        return calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1))!
    }
}
