import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import Synchronization

/// An app for tests: the configuration of a directory and a registry of functions, run with an in-memory
/// store and the recording outbox, so each test gets a fresh app of its own.
///
/// ```swift
/// let app = try await TestApp.start(configDirectory: "app", registry: functionRegistry)
/// defer { Task { await app.stop() } }
/// try await app.collection("product.book").insertOne(["_id": 1, "title": "Dune"])
/// try await app.awaitIdle()
/// #expect(app.outbox.messages(toTopic: "books").count == 1)
/// ```
///
/// Events reach functions two ways: writes through `collection(_:)` go through the change log and the trigger
/// runtime as in production (`awaitIdle()` waits for them), and `fire(_:event:)` hands a synthetic event to one
/// trigger's function directly.
///
/// Time stands still for the app's triggers: schedules and retries' backoffs wait on `clock`, which moves only
/// when the test moves it (`try await app.clock.advance(by: .minutes(5))`).
public final class TestApp: Sendable {
    /// The app under test.
    package let app: SwitchyardApp
    /// What `context.services.messaging` recorded, with fault injection.
    public let outbox: TestOutbox
    /// The clock the app's triggers run on; moving it runs the schedules and retries due meanwhile.
    public let clock: TestClock
    /// What ran: every trigger run and function call the app made.
    private let runCoverage: RunCoverage
    /// The next synthetic event's resume token: counting down from the top, far from the change log's.
    private let nextSyntheticSequence = Atomic<Int64>(Int64.max)

    private init(app: SwitchyardApp, outbox: TestOutbox, clock: TestClock, coverage: RunCoverage) {
        self.app = app
        self.outbox = outbox
        self.clock = clock
        runCoverage = coverage
        let triggers = app.triggers
        clock.drive {
            try await triggers.awaitIdle()
            return await triggers.clockWaits()
        }
    }

    /// A resume token for a synthetic change event, never one the change log hands out.
    func syntheticToken() -> ResumeToken {
        ResumeToken(sequence: nextSyntheticSequence.subtract(1, ordering: .relaxed).oldValue)
    }

    /// Opens the app configured in `configDirectory` (`triggers.yaml`, `values.json`, …) with `registry`'s
    /// functions, in memory, and starts its triggers; returns once every trigger is running.
    /// - Parameters:
    ///   - environment: which `environments/<environment>.json` applies.
    ///   - variables: where `SWITCHYARD_SECRET_<NAME>` secrets are looked up (none by default, so a test does
    ///     not depend on the machine it runs on).
    ///   - triggers: the trigger runtime's default retries (its clock is `clock`).
    ///   - clock: where the triggers' time stands (the wall time when started, by default) until the test moves it.
    /// - Throws: `ConfigurationErrors` when the configuration or registry is wrong; the store's errors.
    public static func start(
        configDirectory: String, registry: FunctionRegistry, environment: AppEnvironment = .testing,
        variables: [String: String] = [:], triggers: TriggerRuntimeConfiguration = TriggerRuntimeConfiguration(),
        clock: TestClock = TestClock()
    ) async throws -> TestApp {
        var triggers = triggers
        triggers.clock = clock
        let coverage = RunCoverage()
        let options = SwitchyardApp.Options(
            storage: .memory, variables: variables, triggers: triggers, coverage: coverage)
        let app = try await SwitchyardApp.open(
            directory: configDirectory, environment: environment, registry: registry, options: options)
        guard let messaging = app.outboxMessaging else {
            await app.stop()
            throw TestAppError("the app does not send through the outbox, so its messages cannot be inspected")
        }
        do {
            try await app.start()
            // Triggers finish starting in the background (opening streams, creating collections with pre-images
            // on); a test's first write must find them running.
            try await app.awaitIdle()
        } catch {
            await app.stop()
            throw error
        }
        let testApp = TestApp(app: app, outbox: TestOutbox(messaging: messaging), clock: clock, coverage: coverage)
        // The report keeps the names and the counts, not the app, so a suite's stopped apps are freed.
        let triggerNames = app.configuration.definition.triggers.map(\.name)
        let functionNames = registry.names
        CoverageCollector.current?.add {
            AppCoverage(triggerNames: triggerNames, functionNames: functionNames, counts: coverage.snapshot)
        }
        return testApp
    }

    /// Starts an app as `start` does, runs `body` with it and stops it, whether `body` returns or throws.
    public static func withApp<Result>(
        configDirectory: String, registry: FunctionRegistry, environment: AppEnvironment = .testing,
        variables: [String: String] = [:], triggers: TriggerRuntimeConfiguration = TriggerRuntimeConfiguration(),
        clock: TestClock = TestClock(), _ body: (TestApp) async throws -> Result
    ) async throws -> Result {
        let app = try await start(
            configDirectory: configDirectory, registry: registry, environment: environment, variables: variables,
            triggers: triggers, clock: clock)
        do {
            let result = try await body(app)
            await app.stop()
            return result
        } catch {
            await app.stop()
            throw error
        }
    }

    /// Which of the app's triggers and functions have run so far, and how often; `.coverageReport` on a suite prints
    /// it for every app the suite starts.
    public var coverage: AppCoverage {
        AppCoverage(
            triggerNames: app.configuration.definition.triggers.map(\.name), functionNames: app.registry.names,
            counts: runCoverage.snapshot)
    }

    /// Stops the triggers and discards the store.
    public func stop() async {
        await app.stop()
    }

    /// The app's store.
    package var store: DocumentStore { app.store }

    /// A collection by its namespace, `"<database>.<collection>"` (the collection may contain dots).
    /// Writes to it fire the app's database triggers.
    /// - Throws: `TestAppError` when `namespace` has no database or no collection part.
    public func collection(_ namespace: String) throws -> DocumentCollection {
        guard let dot = namespace.firstIndex(of: "."), dot != namespace.startIndex,
            namespace.index(after: dot) != namespace.endIndex
        else { throw TestAppError("'\(namespace)' is not a namespace: write \"<database>.<collection>\"") }
        return store.database(String(namespace[..<dot])).collection(String(namespace[namespace.index(after: dot)...]))
    }

    /// Calls a callable function as `user` would from a client (rules, custom user data and time limit apply).
    public func call(_ function: String, _ arguments: BSON..., as user: FunctionUser) async throws -> BSON {
        try await app.call(function: function, arguments: arguments, user: user)
    }

    /// The recorded runs of `trigger` (every trigger's and call's when nil), oldest first.
    public func invocations(trigger: String? = nil, limit: Int = 10_000) async throws -> [InvocationRecord] {
        try await app.invocations.records(trigger: trigger, limit: limit)
    }

    /// The recorded runs of `function`, whatever ran it, oldest first.
    public func invocations(function: String, limit: Int = 10_000) async throws -> [InvocationRecord] {
        try await app.invocations.records(function: function, limit: limit)
    }
}
