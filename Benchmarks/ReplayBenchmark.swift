import BSON
import DocumentStore
import Foundation
import Switchyard

/// `switchyard replay`'s pace beside the live trigger's, in the same run: one ordered trigger calling a registered
/// no-op function through `SwitchyardApp` over a durable SQLite store (as `triggers` (1) measures it through the
/// app) takes 10,000 inserts from one awaiting writer, timed from the first insert until the function ran on the
/// last; then the trigger is recorded (`TriggerRecorder`, untimed) and the recording replayed (`TriggerReplay`:
/// scratch in-memory copy, each change made again, the function run and compared with its recorded run), timed
/// from the start of the replay until its report. Goal: replay ≥ 0.8× the live trigger's events/s.
enum ReplayBenchmark {
    static let benchmark = Benchmark(
        name: "replay",
        summary: "replay of 10,000 recorded events through a no-op function vs the live trigger's events/s",
        run: run)

    static let events = 10_000

    static func run() async throws {
        let root = try makeScratchDirectory("replay-bench")
        defer { removeScratchDirectory(root) }
        let deliveries = DeliveryCount(triggers: ["noop0"])
        var registry = FunctionRegistry()
        registry.register("noop") { (event: ChangeEvent, _: FunctionContext) in
            deliveries.record(event, trigger: "noop0")
        }
        let trigger = TriggerBenchmark.booksTrigger(named: "noop0")
        let configuration = AppConfiguration(
            definition: AppDefinition(triggers: [trigger]), environment: .development, values: AppValues())
        let app = try await SwitchyardApp.open(
            configuration: configuration, registry: registry, store: .sqlite(directory: root + "/app"),
            options: SwitchyardApp.Options(variables: [:]))
        try await app.start()
        let books = app.store.database("bench").collection("books")
        let documents = (0..<events).map(StoreBenchmarkDocuments.book)
        let liveStart = ContinuousClock.now
        for document in documents { _ = try await books.insertOne(document) }
        _ = await deliveries.reached(events)
        let live = Double(events) / Timing.seconds(ContinuousClock.now - liveStart)
        await app.invocations.flush()
        let recording = try await TriggerRecorder(store: app.store, invocations: app.invocations, outbox: app.outboxLog)
            .record(trigger)
        await app.stop()

        let replayStart = ContinuousClock.now
        let report = try await TriggerReplay(configuration: configuration, registry: registry).run(recording)
        let replay = Double(report.events.count) / Timing.seconds(ContinuousClock.now - replayStart)
        let ratio = replay / live
        print(
            "replay of \(report.events.count) recorded events through a no-op function: \(format(replay)) events/s"
                + " | live trigger (SwitchyardApp, SQLite, 1 awaited writer): \(format(live)) events/s"
                + " | ratio \(format(ratio, digits: 2)) | goal ≥ 0.8× live: \(ratio >= 0.8 ? "met" : "NOT met")")
        print(
            "    \(report.summary) (the recording: \(recording.changes.count) changes, \(recording.eventCount) events)")
    }
}

private func format(_ value: Double, digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
}
