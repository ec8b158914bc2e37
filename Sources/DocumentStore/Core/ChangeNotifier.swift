import Synchronization

/// Wakes change streams after commits, and hands them what was just committed. Each subscriber holds
/// the newest committed sequence only: the change log is the source of truth and a woken stream reads
/// it from where it stopped. A stream that follows the log's end takes the newest entries from memory
/// instead (`recent(after:limit:)`): the entries of the last commits as they were written (an insert's
/// with its document, so its event need not be decoded), published once their transaction committed.
/// Reading them back from the log cost a read transaction per commit, and another to find nothing new,
/// more than the commit itself. Only while some stream is subscribed are entries kept.
final class ChangeNotifier: Sendable {
    private struct State {
        var nextId = 0
        var subscribers: [(id: Int, continuation: AsyncStream<Int64>.Continuation)] = []
        var finished = false
        /// The newest committed entries: every entry after `floor` up to `newest`, from `recentStart` on.
        var recent: [CommittedChange] = []
        var recentStart = 0
        var recentBytes = 0
        var floor: Int64 = 0
        var newest: Int64 = 0
        /// The change log's history starts after this sequence (as `StoreCore.prunedThrough`).
        var prunedThrough: Int64 = 0

        mutating func skip(to sequence: Int64) {
            if !recent.isEmpty {
                recent.removeAll(keepingCapacity: true)
                recentStart = 0
                recentBytes = 0
            }
            floor = sequence
            newest = sequence
        }

        mutating func append(_ changes: [CommittedChange]) {
            for change in changes {
                recent.append(change)
                recentBytes += change.record.event.count
                newest = change.sequence
            }
            // Bounded by count and bytes: the oldest go first; a stream behind them reads the log.
            while recent.count - recentStart > ChangeNotifier.recentCapacity
                || (recentBytes > ChangeNotifier.recentByteCapacity && recentStart < recent.count)
            {
                recentBytes -= recent[recentStart].record.event.count
                floor = recent[recentStart].sequence
                recentStart += 1
            }
            if recentStart > 64 && recentStart * 2 > recent.count {
                recent.removeFirst(recentStart)
                recentStart = 0
            }
        }
    }

    /// What the memory holds at most: entries and their bytes.
    static let recentCapacity = 1_024
    static let recentByteCapacity = 8 << 20

    private let state = Mutex(State())

    /// The log ends at `sequence` when the store opens; nothing is in memory yet.
    func start(after sequence: Int64, prunedThrough: Int64) {
        state.withLock { state in
            state.floor = sequence
            state.newest = sequence
            state.prunedThrough = prunedThrough
        }
    }

    func subscribe() -> AsyncStream<Int64> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int64.self, bufferingPolicy: .bufferingNewest(1))
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            let id = state.nextId
            state.nextId += 1
            state.subscribers.append((id, continuation))
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.subscribers.removeAll { $0.id == id } }
        }
        return stream
    }

    /// A transaction committed `records` (in log order, right after the previous ones); wakes every stream.
    func publish(_ records: [CommittedChange]) {
        guard let last = records.last?.sequence else { return }
        let subscribers = state.withLock { state in
            // With no stream to read them, none is kept: a stream opened later starts at the end, or
            // resumes from a token, reading the log until it reaches what memory holds.
            if state.subscribers.isEmpty {
                state.skip(to: last)
            } else {
                state.append(records)
            }
            return state.subscribers
        }
        for subscriber in subscribers { subscriber.continuation.yield(last) }
    }

    /// A prune committed: the history starts after `sequence`.
    func pruned(through sequence: Int64) {
        state.withLock { $0.prunedThrough = sequence }
    }

    enum Recent {
        /// Up to `limit` entries right after the position, and where the log's history starts.
        case changes([CommittedChange], prunedThrough: Int64)
        /// Nothing committed after the position yet.
        case caughtUp(prunedThrough: Int64)
        /// The position is before what memory holds (or not one of this store's): read the log.
        case unavailable
    }

    func recent(after position: Int64, limit: Int) -> Recent {
        state.withLock { state in
            guard !state.finished, position >= state.floor, position <= state.newest else { return .unavailable }
            if position == state.newest { return .caughtUp(prunedThrough: state.prunedThrough) }
            // Sequences rise by one along `recent`, but a skipped one costs nothing to allow for: bisect.
            var low = state.recentStart
            var high = state.recent.count
            while low < high {
                let middle = (low + high) / 2
                if state.recent[middle].sequence <= position { low = middle + 1 } else { high = middle }
            }
            let end = min(low + max(1, limit), state.recent.count)
            return .changes(Array(state.recent[low..<end]), prunedThrough: state.prunedThrough)
        }
    }

    func finishAll() {
        let subscribers = state.withLock { state in
            state.finished = true
            state.recent = []
            state.recentStart = 0
            return state.subscribers
        }
        for subscriber in subscribers { subscriber.continuation.finish() }
    }
}
