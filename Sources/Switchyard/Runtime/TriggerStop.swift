import Synchronization

/// Stops a trigger's runner without cutting a function short. A runner calls its functions inline, in its
/// own task (a task per attempt cost two thread hops per event), so cancelling that task while a function
/// runs would cancel the function too. Instead the runtime asks here: the runner's task is cancelled at
/// once when no function is running, and otherwise by the last running function as it returns; no
/// function starts after the request. Everything a runner waits on between functions (the change feed, a
/// retry's backoff, a schedule) ends by cancellation, as it always did.
final class TriggerStop: Sendable {
    private struct State {
        var requested = false
        /// Functions running now (more than one only for unordered triggers).
        var running = 0
        /// The task to cancel when the last running function returns.
        var pending: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// Stops the runner `task`: cancels it now when no function is running, else once the last one returned.
    func request(cancelling task: Task<Void, Never>) {
        let idle = state.withLock { state -> Bool in
            state.requested = true
            guard state.running > 0 else { return true }
            state.pending = task
            return false
        }
        if idle { task.cancel() }
    }

    /// Runs `attempt` unless a stop was requested (then returns nil and does not call it).
    func run<Value>(_ attempt: () async -> Value) async -> Value? {
        let admitted = state.withLock { state -> Bool in
            guard !state.requested else { return false }
            state.running += 1
            return true
        }
        guard admitted else { return nil }
        defer { leave() }
        return await attempt()
    }

    private func leave() {
        let pending = state.withLock { state -> Task<Void, Never>? in
            state.running -= 1
            guard state.running == 0 else { return nil }
            defer { state.pending = nil }
            return state.pending
        }
        pending?.cancel()
    }
}

/// A runner's task and what stops it (`TriggerStop`).
struct TriggerTask: Sendable {
    let task: Task<Void, Never>
    let stop: TriggerStop

    /// Asks the runner to stop; `value` then returns once it did.
    func requestStop() {
        stop.request(cancelling: task)
    }

    var value: Void {
        get async { await task.value }
    }
}
