import Foundation
import Synchronization

/// Runs an action when its deadline passes unless it was removed first: the time limits of function runs. One
/// thread sleeps until the earliest deadline; adding and removing an entry is a dictionary update under a lock,
/// and adding one later than the earliest (the usual case, as limits are alike) wakes nothing.
final class DeadlineWatch: Sendable {
    static let shared = DeadlineWatch()

    struct Entry: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private struct Pending {
        var deadline: ContinuousClock.Instant
        var action: @Sendable () -> Void
    }

    private struct State {
        var pending: [UInt64: Pending] = [:]
        var nextId: UInt64 = 0
        /// When the thread wakes next (nil: it sleeps until signalled); nil too before the thread starts.
        var wake: ContinuousClock.Instant?
        var started = false
    }

    private let state = Mutex(State())
    /// Wakes the thread when an entry is due before its planned wake.
    private let condition = NSCondition()

    private init() {}

    /// Runs `action` once `limit` has passed, on the watch's thread (keep it short), unless removed first.
    func add(after limit: Duration, _ action: @escaping @Sendable () -> Void) -> Entry {
        let deadline = ContinuousClock.now.advanced(by: limit)
        let (id, signal, start) = state.withLock { state in
            state.nextId += 1
            state.pending[state.nextId] = Pending(deadline: deadline, action: action)
            let start = !state.started
            state.started = true
            let signal = state.wake.map { deadline < $0 } ?? true
            if signal { state.wake = deadline }
            return (state.nextId, signal, start)
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "switchyard-deadlines"
            thread.stackSize = 64 << 10
            thread.start()
        } else if signal {
            condition.lock()
            condition.signal()
            condition.unlock()
        }
        return Entry(id: id)
    }

    func remove(_ entry: Entry) {
        _ = state.withLock { $0.pending.removeValue(forKey: entry.id) }
    }

    private func run() {
        // The condition's lock is held from computing the next wake to sleeping, so that an earlier deadline added
        // meanwhile signals a sleeping thread rather than one about to sleep.
        condition.lock()
        while true {
            let now = ContinuousClock.now
            let (due, next) = state.withLock { state -> ([@Sendable () -> Void], ContinuousClock.Instant?) in
                var due: [@Sendable () -> Void] = []
                var next: ContinuousClock.Instant?
                for (id, pending) in state.pending {
                    if pending.deadline <= now {
                        due.append(pending.action)
                        state.pending.removeValue(forKey: id)
                    } else if next.map({ pending.deadline < $0 }) ?? true {
                        next = pending.deadline
                    }
                }
                state.wake = next
                return (due, next)
            }
            if !due.isEmpty {
                condition.unlock()
                for action in due { action() }
                condition.lock()
                continue
            }
            if let next {
                let (seconds, attoseconds) = now.duration(to: next).components
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18))
            } else {
                condition.wait()
            }
        }
    }
}
