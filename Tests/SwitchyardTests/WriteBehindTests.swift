import Synchronization
import Testing

@testable import Switchyard

/// Writers hand elements over without waiting; the drain writes them all, once each, in batches.
@Suite struct WriteBehindTests {
    /// What the drain wrote, batch by batch; while `refusing`, it takes nothing, as a full disk.
    final class Sink: Sendable {
        private let batches = Mutex<[[Int]]>([])
        let refusing = Atomic(false)

        var written: [Int] { batches.withLock { $0.flatMap { $0 } } }
        var batchCount: Int { batches.withLock { $0.count } }

        func write(_ batch: [Int]) async -> WriteBehind<Int>.BatchOutcome {
            if refusing.load(ordering: .relaxed) { return .retryLater }
            batches.withLock { $0.append(batch) }
            return .done
        }
    }

    @Test func appendsFromManyTasksAreEachWrittenOnceAndTheBacklogStaysBounded() async throws {
        let sink = Sink()
        let writer = WriteBehind<Int>(maximumBacklog: 8) { await sink.write($0) }
        let count = 600
        await withTaskGroup(of: Void.self) { group in
            for element in 1...count {
                group.addTask { await writer.append(element) }
            }
        }
        // Each append returned with at most `maximumBacklog` elements (its own among them) unwritten.
        #expect(count - sink.written.count <= 8)
        await writer.flush()
        #expect(sink.written.sorted() == Array(1...count))
    }

    @Test func oneWritersElementsAreWrittenInTheOrderAppended() async throws {
        let sink = Sink()
        let writer = WriteBehind<Int>(batchInterval: .milliseconds(1)) { await sink.write($0) }
        for element in 0..<2_000 { await writer.append(element) }
        await writer.flush()
        #expect(sink.written == Array(0..<2_000))
        // Batched: far fewer writes than elements.
        #expect(sink.batchCount < 2_000)
    }

    /// The drain pauses between batches for an hour here: a flush, and appends over the backlog, must not wait
    /// for that pause (each would hang until the suite's time limit if they did).
    @Test(.timeLimit(.minutes(1))) func flushesAndFullBacklogsCutTheDrainsPauseShort() async throws {
        let sink = Sink()
        let writer = WriteBehind<Int>(maximumBacklog: 4, batchInterval: .seconds(3600)) { await sink.write($0) }
        for round in 0..<3 {
            await writer.append(round)
            await writer.flush()
            #expect(sink.written.count == round + 1)
        }
        // Far past the backlog, appended one after another while the drain pauses after each batch.
        for element in 3..<40 { await writer.append(element) }
        #expect(sink.written.count >= 40 - 4)
        await writer.flush()
        #expect(sink.written == Array(0..<40))
    }

    /// The store refuses batches for a while: writers go on without waiting, the newest `maximumHeld` elements are
    /// kept (the older ones dropped and counted), and written in order once the store takes them again.
    @Test(.timeLimit(.minutes(1))) func batchesTheStoreRefusesAreHeldBoundedAndWrittenOnceItTakesThem() async throws {
        let sink = Sink()
        sink.refusing.store(true, ordering: .relaxed)
        let drops = Mutex<[Int]>([])
        let writer = WriteBehind<Int>(
            maximumBacklog: 4, batchInterval: .milliseconds(1), maximumHeld: 10,
            onDrop: { dropped, _ in drops.withLock { $0.append(dropped) } }
        ) { await sink.write($0) }
        for element in 0..<25 { await writer.append(element) }
        await writer.flush()
        #expect(sink.written.isEmpty)
        #expect(writer.unwritten.held == 10)
        #expect(writer.unwritten.dropped == 15)
        #expect(drops.withLock { $0.reduce(0, +) } == 15)

        sink.refusing.store(false, ordering: .relaxed)
        await writer.flush()
        #expect(sink.written == Array(15..<25))
        #expect(writer.unwritten.held == 0)
        for element in 25..<30 { await writer.append(element) }
        await writer.flush()
        #expect(sink.written == Array(15..<30))
    }
}

extension WriteBehind {
    /// Queues `element` and waits as a writer over the backlog must: what an invocation record's hand-over does.
    fileprivate func append(_ element: Element) async {
        if let target = enqueue(element) { await waitUntilWritten(target) }
    }
}
