import Foundation
import Synchronization

/// Runs an action when its deadline passes unless it was removed first: the time limits of function runs
/// (`FunctionDeadline`). One thread sleeps until the earliest deadline. Entries are spread over shards, each with
/// its own lock, since every run that waits adds and removes one, from every server thread: a single lock taken by
/// all of them spins more than it runs. Adding an entry later than the planned wake (the usual case, as limits
/// are alike) wakes nothing.
final class DeadlineWatch: Sendable {
    static let shared = DeadlineWatch()

    struct Entry: Sendable {
        fileprivate let shard: Int
        fileprivate let id: UInt64
    }

    private struct Pending {
        var deadline: UInt64
        var action: @Sendable () -> Void
    }

    private final class Shard: Sendable {
        let pending = Mutex<[UInt64: Pending]>([:])
    }

    private let shards = (0..<16).map { _ in Shard() }
    private let nextId = Atomic<UInt64>(0)
    /// When the thread wakes next, in `now()` nanoseconds: `UInt64.max` while it sleeps until signalled, 0 while
    /// it scans (an entry added then might be missed by the scan, so its adder signals).
    private let plannedWake = Atomic<UInt64>(UInt64.max)
    private let started = Atomic(false)
    /// Wakes the thread when an entry is due before its planned wake; held by the thread from scanning to waiting.
    private let condition = NSCondition()

    /// One per process (`shared`); tests make their own, so as not to hold up the shared thread.
    init() {}

    /// Runs `action` once `limit` has passed, on the watch's thread (keep it short), unless removed first.
    func add(after limit: Duration, _ action: @escaping @Sendable () -> Void) -> Entry {
        let (seconds, attoseconds) = limit.components
        let nanoseconds =
            seconds < 0
            ? 0
            : seconds >= Int64(UInt64.max / 2_000_000_000)
                ? UInt64.max / 2
                : UInt64(seconds) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        let deadline = Self.now() + nanoseconds
        let id = nextId.add(1, ordering: .relaxed).newValue
        let entry = Entry(shard: Int(id % UInt64(shards.count)), id: id)
        shards[entry.shard].pending.withLock { $0[id] = Pending(deadline: deadline, action: action) }
        if !started.exchange(true, ordering: .acquiringAndReleasing) {
            let thread = Thread { [self] in run() }
            thread.name = "switchyard-deadlines"
            thread.stackSize = 64 << 10
            thread.start()
        }
        let planned = plannedWake.load(ordering: .sequentiallyConsistent)
        if planned == 0 || deadline < planned {
            condition.lock()
            condition.signal()
            condition.unlock()
        }
        return entry
    }

    func remove(_ entry: Entry) {
        _ = shards[entry.shard].pending.withLock { $0.removeValue(forKey: entry.id) }
    }

    /// Monotonic nanoseconds.
    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private func run() {
        condition.lock()
        while true {
            plannedWake.store(0, ordering: .sequentiallyConsistent)
            let now = Self.now()
            var due: [Pending] = []
            var next = UInt64.max
            for shard in shards {
                shard.pending.withLock { pending in
                    for (id, entry) in pending {
                        if entry.deadline <= now {
                            due.append(entry)
                            pending.removeValue(forKey: id)
                        } else {
                            next = min(next, entry.deadline)
                        }
                    }
                }
            }
            if !due.isEmpty {
                condition.unlock()
                // In deadline order: a scan late under load finds several due at once.
                for entry in due.sorted(by: { $0.deadline < $1.deadline }) { entry.action() }
                condition.lock()
                continue
            }
            plannedWake.store(next, ordering: .sequentiallyConsistent)
            if next == UInt64.max {
                condition.wait()
            } else {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(next - now) / 1e9))
            }
        }
    }
}
