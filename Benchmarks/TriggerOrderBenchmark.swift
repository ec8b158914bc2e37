import BSON
import DocumentStore
import Foundation
import Switchyard
import Synchronization

/// `ordered: byDocumentKey` with `maxConcurrency: 8` beside `ordered: true`, on the same workload in the same run:
/// 64 documents inserted, then updated round after round (each document's events interleaved with the others'),
/// 1,600 events in a SQLite store, written while the trigger is stopped. The function awaits 1 ms, as one calling
/// another service would. Timed from the trigger's start until it caught up with the log (`awaitIdle`: every
/// function finished and the trigger's state saved). The function checks each document's events arrive in commit
/// order and never overlap; a violation is printed. Rounds alternate the two; figures are medians. Goal ≥ 6×.
enum TriggerOrderBenchmark {
    static let benchmark = Benchmark(
        name: "trigger-order",
        summary:
            "byDocumentKey (maxConcurrency 8) vs ordered: true, function awaiting 1 ms, per-document order checked",
        run: run)

    static let documents = 64
    static let updatesPerDocument = 24
    static let rounds = 3

    static func run() async throws {
        let root = try makeScratchDirectory("trigger-order-bench")
        defer { removeScratchDirectory(root) }
        var measured: [(ordered: Double, byDocument: Double)] = []
        var violations = 0
        for round in 0..<rounds {
            let ordered = try await throughput(.ordered, directory: root + "/ordered-\(round)")
            let byDocument = try await throughput(
                .byDocumentKey(maxConcurrency: 8), directory: root + "/by-document-\(round)")
            violations += ordered.violations + byDocument.violations
            measured.append((ordered.rate, byDocument.rate))
        }
        let ratio = median(measured.map { $0.byDocument / $0.ordered })
        let events = documents * (updatesPerDocument + 1)
        print(
            "byDocumentKey, maxConcurrency 8, function awaiting 1 ms, \(events) events over \(documents) documents,"
                + " median of \(rounds) rounds: \(format(median(measured.map(\.byDocument)))) events/s"
                + " | ordered: true: \(format(median(measured.map(\.ordered)))) events/s"
                + " | ratio \(format(ratio, digits: 2)) | goal ≥ 6×: \(ratio >= 6 ? "met" : "NOT met")"
                + " | per-document order: \(violations == 0 ? "kept" : "\(violations) VIOLATIONS")")
    }

    /// Events per second for one trigger delivering the prepared workload, and how often a document's events
    /// arrived out of commit order or overlapped.
    static func throughput(_ delivery: DeliveryOrder, directory: String) async throws -> (
        rate: Double, violations: Int
    ) {
        let order = DocumentOrderCheck(documents: documents)
        let trigger = TriggerDefinition(
            name: "perDocument", function: "wait",
            kind: .database(
                DatabaseTrigger(
                    scope: .collection(database: "bench", collection: "books"), operations: [.insert, .update],
                    delivery: delivery)))
        // A new trigger starts at the log's end: started once before the writes, it saves its token there, and
        // the timed start catches up on all of them.
        let store = try await DocumentStore.open(.sqlite(directory: directory))
        let first = TriggerRuntime(store: store, definitions: [trigger]) { _ in }
        try await first.start()
        try await first.awaitIdle()
        await first.stop()
        let books = store.database("bench").collection("books")
        try await books.insertMany((0..<documents).map { ["_id": .int32(Int32($0)), "n": 0] })
        for round in 1...updatesPerDocument {
            for id in 0..<documents {
                try await books.updateOne(["_id": .int32(Int32(id))], ["$set": ["n": .int32(Int32(round))]])
            }
        }
        let runtime = TriggerRuntime(store: store, definitions: [trigger]) { invocation in
            guard case .database(let event) = invocation.input, let id = event.documentKey?["_id"]?.int64Value else {
                return
            }
            order.begin(Int(id), sequence: event.id.sequence)
            try await Task.sleep(for: .milliseconds(1))
            order.end(Int(id))
        }
        let start = ContinuousClock.now
        try await runtime.start()
        try await runtime.awaitIdle()
        let elapsed = Timing.seconds(ContinuousClock.now - start)
        await runtime.stop()
        await store.close()
        return (Double(documents * (updatesPerDocument + 1)) / elapsed, order.violations)
    }
}

/// Per document: the last sequence begun and whether a run is going on; a begin out of order or during a run
/// counts as a violation.
private final class DocumentOrderCheck: Sendable {
    private struct State {
        var last: [Int64]
        var running: [Bool]
        var violations = 0
    }

    private let state: Mutex<State>

    init(documents: Int) {
        state = Mutex(
            State(last: Array(repeating: 0, count: documents), running: Array(repeating: false, count: documents)))
    }

    func begin(_ document: Int, sequence: Int64) {
        state.withLock { state in
            if sequence <= state.last[document] || state.running[document] { state.violations += 1 }
            state.last[document] = sequence
            state.running[document] = true
        }
    }

    func end(_ document: Int) {
        state.withLock { $0.running[document] = false }
    }

    var violations: Int { state.withLock { $0.violations } }
}

private func format(_ value: Double, digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
}
