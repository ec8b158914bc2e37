import BSON
import Foundation
import Synchronization

/// One log forwarder's records on their way out: held in a bounded queue, delivered by one background drain at a
/// time (one record a delivery for `single`, up to 100 for `batch`), each delivery tried a few times with backoff.
///
/// Offering a record never waits: runs hand theirs over and go on. When `capacity` records wait already, the new
/// one is dropped, counted and reported (once per overflow) instead of the queue growing.
final class LogForwarderQueue: Sendable {
    typealias Deliver = @Sendable (LogForwarder.Action, [BSONDocument]) async throws -> Void

    let forwarder: LogForwarder
    /// Records waiting beyond which new ones are dropped.
    static let capacity = 10_000
    /// How long a partial batch waits for more records before it is delivered anyway.
    static let batchInterval = Duration.seconds(1)
    /// Tries of one delivery, the first included, before its records count as failed.
    static let retry = RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(200), maxBackoff: .seconds(2))

    private let deliver: Deliver
    private let pause = BatchPause(duration: LogForwarderQueue.batchInterval)
    private let state = Mutex(State())

    private struct State {
        var waiting: [BSONDocument] = []
        /// Whether a drain task runs; whoever sets it starts one.
        var draining = false
        /// Callers of `flush()` waiting for the queue to empty; a drain does not pause while there are any.
        var flushes: [CheckedContinuation<Void, Never>] = []
        var overflowing = false
        var counts = LogForwarderStatus.Counts()
    }

    init(forwarder: LogForwarder, deliver: @escaping Deliver) {
        self.forwarder = forwarder
        self.deliver = deliver
    }

    var status: LogForwarderStatus {
        let (queued, counts) = state.withLock { ($0.waiting.count, $0.counts) }
        return LogForwarderStatus(forwarder: forwarder, queued: queued, counts: counts)
    }

    /// Queues `record` for delivery, or drops it when the queue is full. Synchronous and quick: called on the
    /// run's own path.
    func offer(_ record: BSONDocument) {
        let (startDrain, full, firstDrop) = state.withLock { state -> (Bool, Bool, Bool) in
            guard state.waiting.count < Self.capacity else {
                state.counts.dropped += 1
                let first = !state.overflowing
                state.overflowing = true
                return (false, false, first)
            }
            state.waiting.append(record)
            let start = !state.draining
            state.draining = true
            return (start, state.waiting.count >= LogForwarder.maximumBatch, false)
        }
        if firstDrop {
            LogForwarding.report(
                "log forwarder '\(forwarder.name)': \(Self.capacity) records wait already; dropping new ones until it catches up (counted as dropped)"
            )
        }
        if startDrain { Task { await drain() } }
        if full, forwarder.policy == .batch { pause.cutShort() }
    }

    /// Waits until every record queued before the call (and since) has been delivered or counted as failed,
    /// delivering a partial batch at once instead of after `batchInterval`.
    func flush() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                guard state.draining else { return true }
                state.flushes.append(continuation)
                return false
            }
            if idle { continuation.resume() } else { pause.cutShort() }
        }
    }

    private func drain() async {
        while true {
            if forwarder.policy == .batch {
                let waitForMore = state.withLock { state in
                    state.waiting.count < LogForwarder.maximumBatch && state.flushes.isEmpty
                }
                if waitForMore { await pause.pause() }
            }
            let (batch, flushes) = state.withLock { state -> ([BSONDocument], [CheckedContinuation<Void, Never>]) in
                guard !state.waiting.isEmpty else {
                    // Under the same lock as `offer`'s look at it: a record offered after this starts a new drain.
                    state.draining = false
                    state.overflowing = false
                    defer { state.flushes = [] }
                    return ([], state.flushes)
                }
                let size = forwarder.policy == .single ? 1 : LogForwarder.maximumBatch
                let batch = Array(state.waiting.prefix(size))
                state.waiting.removeFirst(batch.count)
                return (batch, [])
            }
            guard !batch.isEmpty else {
                for flush in flushes { flush.resume() }
                return
            }
            await deliverWithRetries(batch)
        }
    }

    private func deliverWithRetries(_ batch: [BSONDocument]) async {
        var attempt = 1
        while true {
            do {
                try await deliver(forwarder.action, batch)
                state.withLock { state in
                    state.counts.delivered += batch.count
                    state.counts.deliveries += 1
                }
                return
            } catch {
                guard attempt < Self.retry.maxAttempts else {
                    let message = String(describing: error)
                    state.withLock { state in
                        state.counts.failed += batch.count
                        state.counts.lastError = message
                        state.counts.lastErrorTime = Date()
                    }
                    LogForwarding.report(
                        "log forwarder '\(forwarder.name)': \(batch.count) record(s) not delivered after \(attempt) attempts: \(message)"
                    )
                    return
                }
                try? await Task.sleep(for: Self.retry.backoff(afterAttempt: attempt))
                attempt += 1
            }
        }
    }
}
