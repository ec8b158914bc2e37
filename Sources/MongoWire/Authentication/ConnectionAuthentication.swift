import Synchronization

/// One connection's authentication: the user it authenticated as, and the SCRAM exchange under way. A connection
/// runs one command at a time, so the lock is never contended; it makes the state `Sendable`.
package final class ConnectionAuthentication: Sendable {
    private struct State {
        var user: String?
        var conversation: Conversation?
    }

    struct Conversation {
        var scram: ScramConversation
        /// The proof was checked and the server's signature sent; the client's empty message ends it.
        var proven: Bool
        /// The client offered `skipEmptyExchange`: the server's signature ends the exchange.
        var skipsEmptyExchange: Bool
    }

    private let state = Mutex(State())

    package init() {}

    package var user: String? { state.withLock { $0.user } }

    var conversation: Conversation? {
        get { state.withLock { $0.conversation } }
        set { state.withLock { $0.conversation = newValue } }
    }

    func authenticated(as user: String) {
        state.withLock {
            $0.user = user
            $0.conversation = nil
        }
    }

    func logOut() {
        state.withLock { $0 = State() }
    }
}
