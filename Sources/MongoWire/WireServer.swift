import BSON
import Dispatch
import DocumentStore
import Foundation
import Sockets
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The MongoDB wire protocol server: a thread accepts connections and each admitted connection has a thread of its
/// own, reading messages, running their commands against the store and writing the replies. Connections are bounded
/// in total and per peer host; one beyond a bound is closed at once.
///
/// ```swift
/// let server = try WireServer.start(store: store, configuration: .init(port: 0))
/// print("mongodb://127.0.0.1:\(server.port)/?directConnection=true")
/// ```
package final class WireServer: Sendable {
    package struct Configuration: Sendable {
        package var host: String
        /// 0 picks a free port.
        package var port: UInt16
        package var maximumConnections: Int
        package var maximumConnectionsPerPeer: Int
        /// How long a transaction may hold the store's writer before it is aborted (MongoDB's
        /// `transactionLifetimeLimitSeconds`, 60 s).
        package var transactionLifetime: Duration
        /// The users a connection authenticates as (`WireUsers.load`); none asks for no authentication.
        package var users: WireUsers
        /// TLS for every connection; nil serves plain TCP.
        package var tls: WireTLS?
        /// How long a connection may take over its TLS handshake before it is closed.
        package var handshakeTimeout: Duration = .seconds(10)

        package init(
            host: String = "127.0.0.1", port: UInt16 = 27017, maximumConnections: Int = 256,
            maximumConnectionsPerPeer: Int = 200, transactionLifetime: Duration = .seconds(60),
            users: WireUsers = WireUsers(), tls: WireTLS? = nil
        ) {
            self.tls = tls
            self.transactionLifetime = transactionLifetime
            self.host = host
            self.port = port
            self.maximumConnections = maximumConnections
            self.maximumConnectionsPerPeer = maximumConnectionsPerPeer
            self.users = users
        }
    }

    private struct State {
        var connections: [Int64: (socket: Int32, peer: PeerAddress)] = [:]
        /// Open connections by `PeerAddress.limitGroup`, as the HTTP server counts them.
        var perPeer: [PeerAddress: Int] = [:]
        var nextConnectionId: Int64 = 1
        var stopping = false
    }

    package let host: String
    package let port: UInt16
    package let dispatcher: CommandDispatcher
    private let configuration: Configuration
    private let listener: Int32
    private let state = Mutex(State())
    /// Entered by the accept thread and every connection thread, so `stop` can wait for all of them.
    private let threads = DispatchGroup()

    private init(listener: ListeningSocket, dispatcher: CommandDispatcher, configuration: Configuration) {
        self.listener = listener.socket
        self.port = listener.port
        self.host = configuration.host
        self.dispatcher = dispatcher
        self.configuration = configuration
    }

    /// The connection string a driver connects with.
    package var connectionString: String {
        "mongodb://\(Self.shown(host)):\(port)/?directConnection=true\(configuration.tls == nil ? "" : "&tls=true")"
    }

    /// A host as it stands before `:port`: an IPv6 literal in brackets.
    private static func shown(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }

    /// Listens and starts accepting; fails with `ListenError` (`.addressInUse` when the port is taken).
    package static func start(store: DocumentStore, configuration: Configuration = .init()) throws(ListenError)
        -> WireServer
    {
        let listener = try ListeningSocket(host: configuration.host, port: configuration.port)
        let dispatcher = CommandDispatcher(
            store: store, host: "\(Self.shown(configuration.host)):\(listener.port)",
            maximumConnections: configuration.maximumConnections,
            transactionLifetime: configuration.transactionLifetime,
            users: configuration.users)
        let server = WireServer(listener: listener, dispatcher: dispatcher, configuration: configuration)
        server.threads.enter()
        let thread = Thread { [server] in
            server.acceptLoop()
            server.threads.leave()
        }
        thread.name = "mongodb-accept"
        thread.start()
        return server
    }

    /// Stops accepting, closes every connection (commands under way finish first) and waits for the threads.
    package func stop() async {
        let sockets = state.withLock { state -> [Int32] in
            state.stopping = true
            return state.connections.values.map(\.socket)
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
        // Ends change streams first, so a getMore waiting for events answers now rather than at its maxTimeMS.
        dispatcher.close()
        let threads = self.threads
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            threads.notify(queue: .global()) { continuation.resume() }
        }
        close(listener)
    }

    private func acceptLoop() {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let socket = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
            }
            if socket < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE {
                    if state.withLock({ $0.stopping }) { return }
                    if errno == EMFILE || errno == ENFILE { usleep(10_000) }
                    continue
                }
                return
            }
            _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
            let peer = WirePeer(storage)
            guard let id = admit(socket, peer: peer.address.limitGroup) else {
                close(socket)
                continue
            }
            var on: Int32 = 1
            _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            threads.enter()
            dispatcher.openConnections.add(1, ordering: .relaxed)
            let tls = configuration.tls
            let handshakeTimeout = configuration.handshakeTimeout
            let thread = Thread { [self] in
                defer {
                    dispatcher.openConnections.subtract(1, ordering: .relaxed)
                    release(id)
                    threads.leave()
                }
                var session: WireTLSSession?
                if let tls {
                    // OpenSSL writes with write(2): a peer gone mid-write raises SIGPIPE, which this thread holds
                    // blocked (so the write fails with EPIPE instead of the signal ending the process).
                    Self.blockBrokenPipe()
                    Self.setReceiveTimeout(socket, handshakeTimeout)
                    guard let accepted = tls.accept(socket) else { return }
                    Self.setReceiveTimeout(socket, .zero)
                    session = accepted
                }
                WireConnection(socket: socket, id: id, peer: peer, dispatcher: dispatcher, tls: session).serve()
            }
            thread.name = "mongodb-conn-\(id)"
            thread.start()
        }
    }

    private static func blockBrokenPipe() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Bounds how long a read on `socket` waits (zero: without bound).
    private static func setReceiveTimeout(_ socket: Int32, _ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The new connection's id, or nil when a bound (or stopping) refuses it.
    private func admit(_ socket: Int32, peer: PeerAddress) -> Int64? {
        state.withLock { state in
            guard !state.stopping, state.connections.count < configuration.maximumConnections,
                state.perPeer[peer, default: 0] < configuration.maximumConnectionsPerPeer
            else { return nil }
            let id = state.nextConnectionId
            state.nextConnectionId += 1
            state.connections[id] = (socket, peer)
            state.perPeer[peer, default: 0] += 1
            return id
        }
    }

    private func release(_ id: Int64) {
        let socket = state.withLock { state -> Int32? in
            guard let connection = state.connections.removeValue(forKey: id) else { return nil }
            state.perPeer[connection.peer, default: 1] -= 1
            if state.perPeer[connection.peer] == 0 { state.perPeer[connection.peer] = nil }
            return connection.socket
        }
        if let socket { close(socket) }
    }

    /// How many connections are open now.
    package var connectionCount: Int { state.withLock { $0.connections.count } }
}
