import Synchronization

/// A request to stop, made once from anywhere (a signal, a condition, a caller) and awaited by the lifecycle: the
/// first reason delivered is kept, and one delivered before anyone waits is not lost.
final class StopRequest: Sendable {
    private let state = Mutex<(reason: String?, waiters: [CheckedContinuation<String, Never>])>((nil, []))

    /// The reason, once a stop was asked for.
    var reason: String? { state.withLock { $0.reason } }

    func deliver(_ reason: String) {
        let waiters = state.withLock { state -> [CheckedContinuation<String, Never>] in
            guard state.reason == nil else { return [] }
            state.reason = reason
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: reason) }
    }

    func wait() async -> String {
        await withCheckedContinuation { continuation in
            let reason = state.withLock { state -> String? in
                if state.reason == nil { state.waiters.append(continuation) }
                return state.reason
            }
            if let reason { continuation.resume(returning: reason) }
        }
    }
}
