import Synchronization

/// Who wants to hear when a session ends: a client's open `watch` stream ends with its session (a logout, a
/// revoked session, a deleted user) rather than at its next event. `UserDirectory` announces every revocation
/// here.
///
/// It holds one entry per open stream, and the server bounds its connections (`ConnectionAdmission`).
final class SessionEndings: Sendable {
    private struct Session {
        let userId: String
        var listeners: [UInt64: @Sendable () -> Void] = [:]
    }

    private struct State {
        var next: UInt64 = 0
        var sessions: [String: Session] = [:]
    }

    private let state = Mutex(State())

    /// Runs `ended` once when the session `sessionId` of `userId` ends; `cancel` with the answer stops it.
    func listen(session sessionId: String, user userId: String, _ ended: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            state.next += 1
            state.sessions[sessionId, default: Session(userId: userId)].listeners[state.next] = ended
            return state.next
        }
    }

    func cancel(_ registration: UInt64, session sessionId: String) {
        state.withLock { state in
            state.sessions[sessionId]?.listeners[registration] = nil
            if state.sessions[sessionId]?.listeners.isEmpty == true { state.sessions[sessionId] = nil }
        }
    }

    /// The session has ended: its listeners run, outside the lock (they may cancel).
    func end(session sessionId: String) {
        let ended = state.withLock { $0.sessions.removeValue(forKey: sessionId) }
        for listener in ended?.listeners.values ?? [:].values { listener() }
    }

    /// Every session of the user has ended.
    func end(sessionsOf userId: String) {
        let ended = state.withLock { state in
            let theirs = state.sessions.filter { $0.value.userId == userId }
            for session in theirs.keys { state.sessions[session] = nil }
            return theirs.values.flatMap { $0.listeners.values }
        }
        for listener in ended { listener() }
    }
}
