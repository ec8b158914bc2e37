import Synchronization

/// Awaitable hellos (a driver's streaming monitor sends `topologyVersion` and `maxAwaitTimeMS`) waiting for the
/// topology to change. A one-member replica set's topology changes only when the server stops, so each waits out
/// its `maxAwaitTimeMS` or until `close`. Answered at once instead, a monitor asks again at once: thousands of
/// hellos a second, which took the CPU from the driver's own operations. At most one waits per connection.
final class AwaitedHellos: Sendable {
    private struct State {
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waits whose time ran out before they began waiting (the timer runs beside the wait).
        var expired: Set<Int> = []
        var nextId = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// Returns after `duration`, or at once when the server is stopping.
    func wait(upTo duration: Duration) async {
        let id = state.withLock { state in
            state.nextId += 1
            return state.nextId
        }
        let timer = Task { [self] in
            // Cancelled: the wait is over already and leaves nothing behind.
            guard (try? await Task.sleep(for: duration)) != nil else { return }
            wake(id)
        }
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.closed || state.expired.remove(id) != nil { return true }
                state.waiters[id] = continuation
                return false
            }
            if now { continuation.resume() }
        }
        timer.cancel()
    }

    private func wake(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                if !state.closed { state.expired.insert(id) }
                return nil
            }
            return waiter
        }
        waiter?.resume()
    }

    /// Answers every waiting hello now, and every later one at once.
    func close() {
        let waiters = state.withLock { state in
            state.closed = true
            state.expired.removeAll()
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
