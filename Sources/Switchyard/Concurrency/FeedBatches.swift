import Synchronization

/// A follower of a live feed that loses nothing (`switchyard serve` printing every function run): each step
/// of the iteration gives every element published since the last, in the order they were published, so a
/// follower busy writing the last batch takes the next in one piece rather than waking once per element.
///
/// Publishers wait while `backlogLimit` elements are untaken: a follower slower than the functions (standard
/// output to a terminal or pipe nobody reads) slows them to its pace instead of dropping elements or keeping
/// them without bound. Iterate it once; dropping it (or its iterator) unsubscribes it. Stopping the app ends it
/// after the elements published before.
package final class FeedBatches<Item: Sendable>: AsyncSequence, Sendable {
    package typealias Element = [Item]

    let queue: FeedQueue<Item>
    private let unsubscribe: @Sendable () -> Void

    init(queue: FeedQueue<Item>, unsubscribe: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.unsubscribe = unsubscribe
    }

    deinit {
        queue.end()
        unsubscribe()
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        /// Held so the subscription lasts as long as the iteration.
        let batches: FeedBatches<Item>

        /// The next batch; nil once the feed finished and everything was taken, or when the task is cancelled.
        package mutating func next() async -> [Item]? {
            let queue = batches.queue
            return await withTaskCancellationHandler {
                await queue.take()
            } onCancel: {
                queue.end()
            }
        }
    }

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(batches: self)
    }
}

/// The elements published to one `FeedBatches` and not yet taken, with whoever waits on them. Publishing takes
/// no lock (every function run publishes, from whichever server thread ran it): elements go on an `AppendList`, and
/// the lock is taken only to wake the follower when it sleeps, or by publishers over the backlog limit.
final class FeedQueue<Item: Sendable>: Sendable {
    let backlogLimit: Int
    private let pending = AppendList<Item>()
    /// Elements published and not yet taken.
    private let queued = Atomic(0)
    /// The follower sleeps (or is about to): the next publisher wakes it.
    private let followerSleeps = Atomic(false)
    /// Publishers wait (or are about to) for the backlog to be taken.
    private let publishersWait = Atomic(false)
    private let finished = Atomic(false)
    private let ended = Atomic(false)
    private let waiters = Mutex(Waiters())

    private struct Waiters {
        var follower: CheckedContinuation<Void, Never>?
        var publishers: [CheckedContinuation<Void, Never>] = []
    }

    init(backlogLimit: Int) {
        self.backlogLimit = max(1, backlogLimit)
    }

    /// Queues `item`; true when the backlog is full and the publisher should `waitForRoom()`.
    func put(_ item: Item) -> Bool {
        guard !ended.load(ordering: .relaxed) else { return false }
        pending.append(item)
        let count = queued.add(1, ordering: .sequentiallyConsistent).newValue
        if followerSleeps.load(ordering: .sequentiallyConsistent) { wakeFollower() }
        return count >= backlogLimit
    }

    /// Returns once the backlog is under its limit (or the follower is gone).
    func waitForRoom() async {
        await withCheckedContinuation { continuation in
            let room = waiters.withLock { waiters in
                // Announced before looking, so that a follower taking the backlog meanwhile sees it.
                publishersWait.store(true, ordering: .sequentiallyConsistent)
                guard queued.load(ordering: .sequentiallyConsistent) >= backlogLimit,
                    !ended.load(ordering: .sequentiallyConsistent)
                else { return true }
                waiters.publishers.append(continuation)
                return false
            }
            if room { continuation.resume() }
        }
    }

    /// Everything queued, waiting for at least one element; nil once finished and empty, or ended.
    func take() async -> [Item]? {
        while true {
            guard !ended.load(ordering: .sequentiallyConsistent) else { return nil }
            // Read before taking: an element published before `finish()` is taken by this round.
            let done = finished.load(ordering: .sequentiallyConsistent)
            let batch = pending.takeAll()
            if !batch.isEmpty {
                queued.subtract(batch.count, ordering: .sequentiallyConsistent)
                if publishersWait.load(ordering: .sequentiallyConsistent) { wakePublishers() }
                return batch
            }
            if done { return nil }
            await withCheckedContinuation { continuation in
                waiters.withLock { $0.follower = continuation }
                // Announced before looking again, so that a publisher appending meanwhile sees it.
                followerSleeps.store(true, ordering: .sequentiallyConsistent)
                if !pending.isEmpty || finished.load(ordering: .sequentiallyConsistent)
                    || ended.load(ordering: .sequentiallyConsistent)
                {
                    wakeFollower()
                }
            }
        }
    }

    /// No more elements: the follower takes what is queued, then its iteration ends.
    func finish() {
        finished.store(true, ordering: .sequentiallyConsistent)
        wakeFollower()
    }

    /// The follower is gone (or cancelled): what is queued is dropped and waiting publishers go on.
    func end() {
        ended.store(true, ordering: .sequentiallyConsistent)
        _ = pending.takeAll()
        wakeFollower()
        wakePublishers()
    }

    private func wakeFollower() {
        let follower = waiters.withLock { waiters in
            followerSleeps.store(false, ordering: .sequentiallyConsistent)
            defer { waiters.follower = nil }
            return waiters.follower
        }
        follower?.resume()
    }

    private func wakePublishers() {
        let publishers = waiters.withLock { waiters in
            publishersWait.store(false, ordering: .sequentiallyConsistent)
            defer { waiters.publishers = [] }
            return waiters.publishers
        }
        for publisher in publishers { publisher.resume() }
    }
}
