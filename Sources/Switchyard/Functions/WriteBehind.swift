import Synchronization

/// Elements handed over by many writers that must not wait for the store (every function run records itself),
/// written in the background in batches by one drain at a time, in the order they were appended.
///
/// A busy writer is drained every `batchInterval` or so, in one `write` per batch; `flush()` waits for (and
/// hurries) the drain. `enqueue` returns at once; when more than `maximumBacklog` elements are unwritten, it names
/// what its caller waits for with `waitUntilWritten` (the drain back under that bound), so that writers faster than
/// the store slow to its pace instead of queueing without end.
final class WriteBehind<Element: Sendable>: Sendable {
    /// Writes one batch; it reports its own failures (the writers have moved on).
    typealias Write = @Sendable ([Element]) async -> Void

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

    /// How many appended elements the drain has written, and who waits for more.
    private struct Progress {
        var written = 0
        var waiters: [(upTo: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    init(maximumBacklog: Int = 4096, batchInterval: Duration = .milliseconds(5), write: @escaping Write) {
        self.maximumBacklog = max(1, maximumBacklog)
        pause = BatchPause(duration: batchInterval)
        self.write = write
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

    /// Waits until everything appended before the call is written (or failed to be, which `write` reports).
    func flush() async {
        await waitUntilWritten(appended.load(ordering: .sequentiallyConsistent))
    }

    /// Waits until the drain has written `target` elements in all.
    nonisolated(nonsending) func waitUntilWritten(_ target: Int) async {
        await withCheckedContinuation { continuation in
            let done = progress.withLock { progress -> Bool in
                guard progress.written < target else { return true }
                progress.waiters.append((target, continuation))
                return false
            }
            if done { continuation.resume() } else { pause.cutShort() }
        }
    }

    private func drain() async {
        while true {
            let batch = pending.takeAll()
            guard !batch.isEmpty else {
                draining.store(false, ordering: .sequentiallyConsistent)
                // An append that saw this drain still running left its element for it: take it up again.
                if !pending.isEmpty, !draining.exchange(true, ordering: .sequentiallyConsistent) { continue }
                return
            }
            await write(batch)
            let ready = progress.withLock { progress -> [CheckedContinuation<Void, Never>] in
                progress.written += batch.count
                written.store(progress.written, ordering: .relaxed)
                let ready = progress.waiters.filter { $0.upTo <= progress.written }.map(\.continuation)
                progress.waiters.removeAll { $0.upTo <= progress.written }
                return ready
            }
            for continuation in ready { continuation.resume() }
            if progress.withLock({ $0.waiters.isEmpty }) { await pause.pause() }
        }
    }
}
