import Synchronization

/// Work waits here until the test opens it (then it passes at once); `waiters` counts the ones that came.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var continuations: [CheckedContinuation<Void, Never>] = []
        var waiting = 0
    }

    private let state = Mutex(State())

    var waiters: Int { state.withLock { $0.waiting } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                state.waiting += 1
                if state.isOpen { return true }
                state.continuations.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.continuations = [] }
            return state.continuations
        }
        for continuation in waiting { continuation.resume() }
    }
}
