import Synchronization

/// Elements handed over by many writers that must not wait for the store (every function run records itself),
/// written in the background in batches by one drain at a time, in the order they were appended.
///
/// A busy writer is drained every `batchInterval` or so, in one `write` per batch; `flush()` waits for (and
/// hurries) the drain. `enqueue` returns at once; when more than `maximumBacklog` elements are unwritten, it names
/// what its caller waits for with `waitUntilWritten` (the drain back under that bound), so that writers faster than
/// the store slow to its pace instead of queueing without end.
///
/// A batch the store cannot take for now (its disk is full) is held, with what is appended meanwhile, up to
/// `maximumHeld` elements (the oldest dropped first, counted), and written after a backoff that grows while
/// writes keep failing, or at the next `flush()`. Held elements count as written for `flush()` and the backlog
/// bound: writers never wait for storage to come back.
final class WriteBehind<Element: Sendable>: Sendable {
    /// Writes one batch; it reports its own failures (the writers have moved on).
    typealias Write = @Sendable ([Element]) async -> BatchOutcome

    enum BatchOutcome: Sendable {
        /// Written, or failed for good (the store closing) and reported.
        case done
        /// Not written for now (storage failed): hold it and try again later.
        case retryLater
    }

    private let write: Write
    /// Appended and not yet taken by the drain; appending takes no lock.
    private let pending = AppendList<Element>()
    /// Counted before each element joins `pending`, so a flush that reads it waits for every append that
    /// returned before it.
    private let appended = Atomic(0)
    /// Whether a drain task runs; the appender that sets it starts one.
    private let draining = Atomic(false)
    private let progress = Mutex(Progress())
    /// `progress.written`, readable without the lock: every append compares it with its position.
    private let written = Atomic(0)
    /// Unwritten elements beyond which `enqueue` has its caller wait for the drain.
    let maximumBacklog: Int
    /// Taken by the drain after each batch while nobody waits for it, so that a busy writer writes fewer, larger
    /// batches and the drain is not woken for every element.
    private let pause: BatchPause
    /// Held elements beyond which the oldest are dropped.
    let maximumHeld: Int
    private let retry: RetryPolicy
    private let held = Mutex(Held())
    /// Told how many held elements were just dropped, and how many in all.
    private let onDrop: @Sendable (_ dropped: Int, _ total: Int) -> Void

    /// How many appended elements the drain has written, how many tries of held elements it made, and who waits.
    private struct Progress {
        var written = 0
        var heldTries = 0
        var waiters: [(upTo: Int, heldTries: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// Elements the store could not take yet, oldest first.
    private struct Held {
        var elements: [Element] = []
        var dropped = 0
        /// Failed tries in a row, for the backoff.
        var failures = 0
        /// Whether the drain writes the held elements with its next batch (else new ones join them unwritten).
        var due = false
        var timer: Task<Void, Never>?
    }

    init(
        maximumBacklog: Int = 4096, batchInterval: Duration = .milliseconds(5), maximumHeld: Int = 10_000,
        retry: RetryPolicy = RetryPolicy(initialBackoff: .seconds(1), maxBackoff: .seconds(30)),
        onDrop: @escaping @Sendable (_ dropped: Int, _ total: Int) -> Void = { _, _ in }, write: @escaping Write
    ) {
        self.maximumBacklog = max(1, maximumBacklog)
        pause = BatchPause(duration: batchInterval)
        self.maximumHeld = max(1, maximumHeld)
        self.retry = retry
        self.onDrop = onDrop
        self.write = write
    }

    /// Elements held because the store could not take them, and those dropped from the hold since the start.
    var unwritten: (held: Int, dropped: Int) {
        held.withLock { ($0.elements.count, $0.dropped) }
    }

    /// Queues `element` for the next batch without waiting: what the caller must then wait for with
    /// `waitUntilWritten` when more than `maximumBacklog` elements are unwritten, else nil (the caller decides when
    /// to wait: a run hands its record over synchronously and awaits only a backlog).
    func enqueue(_ element: Element) -> Int? {
        let position = appended.add(1, ordering: .sequentiallyConsistent).newValue
        pending.append(element)
        // Usually a drain runs already: reading the flag costs less than exchanging it.
        if !draining.load(ordering: .sequentiallyConsistent),
            !draining.exchange(true, ordering: .sequentiallyConsistent)
        {
            Task { await drain() }
        }
        return position - written.load(ordering: .relaxed) > maximumBacklog ? position - maximumBacklog : nil
    }

    /// Waits until everything appended before the call is written (or failed to be, which `write` reports, or
    /// held); held elements are tried once more first.
    func flush() async {
        let target = appended.load(ordering: .sequentiallyConsistent)
        let tries = progress.withLock { $0.heldTries }
        let holding = held.withLock { held -> Bool in
            guard !held.elements.isEmpty else { return false }
            held.due = true
            return true
        }
        if holding { wake() }
        await waitUntilWritten(target, heldTries: holding ? tries + 1 : 0)
    }

    /// Waits until the drain has written `target` elements in all (and tried held ones `heldTries` times).
    nonisolated(nonsending) func waitUntilWritten(_ target: Int, heldTries: Int = 0) async {
        await withCheckedContinuation { continuation in
            let done = progress.withLock { progress -> Bool in
                guard progress.written < target || progress.heldTries < heldTries else { return true }
                progress.waiters.append((target, heldTries, continuation))
                return false
            }
            if done { continuation.resume() } else { pause.cutShort() }
        }
    }

    /// Starts a drain unless one runs.
    private func wake() {
        if !draining.exchange(true, ordering: .sequentiallyConsistent) { Task { await drain() } }
    }

    private func drain() async {
        while true {
            let fresh = pending.takeAll()
            let (batch, triesHeld) = held.withLock { held -> ([Element], Bool) in
                if held.elements.isEmpty { return (fresh, false) }
                guard held.due else {
                    hold(fresh, in: &held)
                    return ([], false)
                }
                held.due = false
                defer { held.elements = [] }
                return (held.elements + fresh, true)
            }
            guard !fresh.isEmpty || !batch.isEmpty else {
                draining.store(false, ordering: .sequentiallyConsistent)
                // An append (or a flush making held elements due) that saw this drain still running left its work
                // for it: take it up again.
                let due = held.withLock { $0.due && !$0.elements.isEmpty }
                if !pending.isEmpty || due, !draining.exchange(true, ordering: .sequentiallyConsistent) { continue }
                return
            }
            if !batch.isEmpty { await writeOrHold(batch, triedHeld: triesHeld) }
            let ready = progress.withLock { progress -> [CheckedContinuation<Void, Never>] in
                progress.written += fresh.count
                if triesHeld { progress.heldTries += 1 }
                written.store(progress.written, ordering: .relaxed)
                let isReady = { (waiter: (upTo: Int, heldTries: Int, continuation: CheckedContinuation<Void, Never>)) in
                    waiter.upTo <= progress.written && waiter.heldTries <= progress.heldTries
                }
                let ready = progress.waiters.filter(isReady).map(\.continuation)
                progress.waiters.removeAll(where: isReady)
                return ready
            }
            for continuation in ready { continuation.resume() }
            if progress.withLock({ $0.waiters.isEmpty }) { await pause.pause() }
        }
    }

    /// Writes `batch`, holding it when the store cannot take it for now.
    private func writeOrHold(_ batch: [Element], triedHeld: Bool) async {
        switch await write(batch) {
        case .done:
            if triedHeld { held.withLock { $0.failures = 0 } }
        case .retryLater:
            held.withLock { held in
                hold(batch, in: &held)
                held.failures += 1
                guard held.timer == nil else { return }
                let wait = retry.backoff(afterAttempt: held.failures)
                held.timer = Task {
                    do { try await Task.sleep(for: wait) } catch { return }
                    self.held.withLock {
                        $0.due = true
                        $0.timer = nil
                    }
                    self.wake()
                }
            }
        }
    }

    /// Adds `elements` to the held ones, dropping the oldest beyond `maximumHeld`.
    private func hold(_ elements: [Element], in held: inout Held) {
        held.elements.append(contentsOf: elements)
        let excess = held.elements.count - maximumHeld
        guard excess > 0 else { return }
        held.elements.removeFirst(excess)
        held.dropped += excess
        onDrop(excess, held.dropped)
    }
}
