import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Wakes change streams after commits, and hands them what was just committed. A stream waits for the
/// log to pass its position (`Subscription.wait(after:)`): the change log is the source of truth and a
/// woken stream reads it from where it stopped. A commit wakes only the streams suspended right now (one
/// still busy with earlier events sees the new ones when it next asks, one polling sees them by itself),
/// so it costs the committing writer nothing while no stream is suspended. A stream that follows the log's
/// end takes the newest entries from memory instead (`recent(after:limit:)`): the entries of the last
/// commits as they were written (an insert's with its document, so its event need not be decoded),
/// published once their transaction committed. Reading them back from the log would take a read transaction
/// per commit, and another to find nothing new: more than the commit itself. Only while some stream is
/// subscribed (`subscribe()`) are entries kept.
final class ChangeNotifier: Sendable {
    private struct State {
        /// Streams subscribed now (their `Subscription`s are alive).
        var subscribers = 0
        /// Streams suspended in `suspend(after:)`, each until a commit after its position.
        var waiters: [(id: Int, after: Int64, continuation: UnsafeContinuation<Bool, Never>)] = []
        var nextWaiter = 0
        var finished = false
        /// The newest committed entries: every entry after `floor` up to `newest`, from `recentStart` on.
        var recent: [CommittedChange] = []
        var recentStart = 0
        var recentBytes = 0
        var floor: Int64 = 0
        /// The last published sequence (kept whether or not entries are).
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

        /// The waiters whose position the log has now passed (all of them when `finished`), removed.
        mutating func takeReadyWaiters() -> [UnsafeContinuation<Bool, Never>] {
            guard !waiters.isEmpty else { return [] }
            var ready: [UnsafeContinuation<Bool, Never>] = []
            waiters.removeAll { waiter in
                guard finished || waiter.after < newest else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
    }

    /// A stream's hold on the newest entries: while one lives, `publish` keeps them for `recent`.
    final class Subscription: Sendable {
        private let notifier: ChangeNotifier
        /// Whether this stream's last wait ended within `pollWindow`, so that its next one polls.
        fileprivate let frequent = Atomic<Bool>(true)

        fileprivate init(_ notifier: ChangeNotifier) {
            self.notifier = notifier
        }

        deinit {
            notifier.state.withLock { $0.subscribers -= 1 }
        }

        /// Returns true once a commit after `position` was published (at once if one was), false when the
        /// store closed or the task was cancelled.
        func wait(after position: Int64) async -> Bool {
            await notifier.wait(after: position, for: self)
        }
    }

    /// What the memory holds at most: entries and their bytes.
    static let recentCapacity = 1_024
    static let recentByteCapacity = 8 << 20

    private let state = Mutex(State())
    /// `State.newest`, for streams that poll for it without the lock.
    private let published = Atomic<Int64>(0)
    /// Whether a stream polls now (`wait(after:for:)`): one at most, as it holds a thread of the
    /// cooperative pool while it does.
    private let polling = Atomic<Bool>(false)

    /// How long a stream whose commits come quickly polls before it suspends. A wake-up costs the
    /// committing writer a system call (a fifth of a lone writer's insert, in the trigger benchmark) and
    /// the woken stream's thread a round trip through the kernel; a stream that follows such a writer (a
    /// trigger whose function is quick) usually waits less than this for the next commit.
    static let pollWindow = Duration.microseconds(100)

    /// The log ends at `sequence` when the store opens; nothing is in memory yet.
    func start(after sequence: Int64, prunedThrough: Int64) {
        state.withLock { state in
            state.floor = sequence
            state.newest = sequence
            state.prunedThrough = prunedThrough
        }
        published.store(sequence, ordering: .releasing)
    }

    /// Keeps the newest entries in memory for a stream until the subscription is released.
    func subscribe() -> Subscription {
        state.withLock { $0.subscribers += 1 }
        return Subscription(self)
    }

    /// A transaction committed `records` (in log order, one sequence after another); wakes the streams waiting for
    /// them. On a database other instances write, the entries before them may be others' (the memory then starts
    /// over at them), and a commit heard from another instance may have passed them already (nothing to do).
    func publish(_ records: [CommittedChange]) {
        guard let first = records.first?.sequence, let last = records.last?.sequence else { return }
        let ready = state.withLock { state -> [UnsafeContinuation<Bool, Never>] in
            guard last > state.newest else { return [] }
            if first != state.newest + 1 { state.skip(to: first - 1) }
            // With no stream to read them, none is kept: a stream opened later starts at the end, or
            // resumes from a token, reading the log until it reaches what memory holds.
            if state.subscribers == 0 {
                state.skip(to: last)
            } else {
                state.append(records)
            }
            published.store(state.newest, ordering: .releasing)
            return state.takeReadyWaiters()
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// `Subscription.wait(after:)`. While commits come quickly (the stream's last wait was short), one
    /// stream at a time polls for the next for up to `pollWindow`, giving its processor to any other
    /// thread that wants it meanwhile (the writer, on a machine as busy as it has cores), before it
    /// suspends: a commit it sees this way costs neither side a wake-up.
    private func wait(after position: Int64, for subscription: Subscription) async -> Bool {
        if published.load(ordering: .acquiring) > position { return true }
        var start = ContinuousClock.now
        if subscription.frequent.load(ordering: .relaxed),
            polling.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        {
            let deadline = start.advanced(by: Self.pollWindow)
            var now = start
            while published.load(ordering: .acquiring) <= position && now < deadline {
                sched_yield()
                now = .now
            }
            polling.store(false, ordering: .releasing)
            if published.load(ordering: .acquiring) > position { return true }
            subscription.frequent.store(false, ordering: .relaxed)
            start = now
        }
        let woken = await suspend(after: position)
        if woken && start.duration(to: .now) < Self.pollWindow {
            subscription.frequent.store(true, ordering: .relaxed)
        }
        return woken
    }

    /// Suspends until a commit after `position` is published. The check and the wait are one step under
    /// the lock that `publish` takes, so a commit published at any point after the caller's last read
    /// wakes it.
    private func suspend(after position: Int64) async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
                let outcome = state.withLock { state -> Bool? in
                    if state.finished { return false }
                    if state.newest > position { return true }
                    // A cancellation before this point set the flag first: checked under the same lock.
                    if Task.isCancelled { return false }
                    state.waiters.append((id, position, continuation))
                    return nil
                }
                if let outcome { continuation.resume(returning: outcome) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> UnsafeContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            continuation?.resume(returning: false)
        }
    }

    /// Another instance on the database committed through `sequence` (`CommitListener`): what memory holds is no
    /// longer the log's end, so it starts over there, and the streams waiting before it read the log.
    func othersCommitted(through sequence: Int64) {
        let ready = state.withLock { state -> [UnsafeContinuation<Bool, Never>] in
            guard sequence > state.newest else { return [] }
            state.skip(to: sequence)
            published.store(sequence, ordering: .releasing)
            return state.takeReadyWaiters()
        }
        for continuation in ready { continuation.resume(returning: true) }
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
        let waiting = state.withLock { state in
            state.finished = true
            state.recent = []
            state.recentStart = 0
            return state.takeReadyWaiters()
        }
        for continuation in waiting { continuation.resume(returning: false) }
    }
}
