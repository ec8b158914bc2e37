import Dispatch
import Synchronization

/// The pause a background writer takes after a batch so that the next one gathers more: at tens of thousands of
/// function runs a second, a writer that goes back to sleep after every batch is woken (a thread switch, and a
/// new task) for every one or two records. Whoever needs the writer now (a flush, a writer over its backlog) cuts
/// the pause short, so a pause never delays a read.
final class BatchPause: Sendable {
    let duration: Duration
    private let state = Mutex(State())

    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        /// Tells a timer which pause it was started for: one started for a pause cut short leaves later ones be.
        var generation = 0
        /// Cut short while nobody paused: the next pause ends at once (its caller may have looked for waiters
        /// just before the waiter came).
        var cutShort = false
    }

    init(duration: Duration) {
        self.duration = duration
    }

    /// Returns after `duration`, or once `cutShort()` is called.
    func pause() async {
        await withCheckedContinuation { continuation in
            let generation = state.withLock { state -> Int? in
                if state.cutShort {
                    state.cutShort = false
                    return nil
                }
                state.generation += 1
                state.continuation = continuation
                return state.generation
            }
            guard let generation else { return continuation.resume() }
            let (seconds, attoseconds) = duration.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
                self.resume(generation)
            }
        }
    }

    /// Ends the pause in progress, or the next one if none is.
    func cutShort() {
        resume(nil)
    }

    private func resume(_ generation: Int?) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let continuation = state.continuation else {
                if generation == nil { state.cutShort = true }
                return nil
            }
            guard generation == nil || generation == state.generation else { return nil }
            state.continuation = nil
            return continuation
        }
        continuation?.resume()
    }
}
