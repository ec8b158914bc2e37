import Sockets
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps the server's connections within bounds, per peer and in total, without letting clients that hold
/// connections open and ask nothing (a slow-loris: idle sockets, or request heads sent a byte at a time) lock
/// everyone else out. A connection is idle from when it opens or its last request was answered until the head
/// of its next request has arrived; trickled bytes do not make it busy. A new connection over a limit closes the
/// connection that has been idle longest (of its peer, for the per-peer limit) and takes its place; it is refused
/// only when every connection counted against that limit is busy. A sweep, at most once a second as connections
/// arrive, closes connections idle for longer than the idle timeout however many bytes they trickle.
///
/// A peer is what one client holds (`PeerAddress.limitGroup`): an IPv4 address, or a whole IPv6 /64, from which one
/// host can take as many addresses as it likes. Loopback clients all share one address, so the per-peer limit
/// bounds a remote peer while a developer's and a test's own clients on this machine keep their share: an idle
/// connection of the same peer makes room for them.
///
/// `FrontDoor` asks before accepting (`admit`) and reports each connection's start (`opened`); whoever holds the
/// connection last (the front door, or libmicrohttpd once handed it) reports its close (`closed`); the request
/// callbacks mark it busy and idle again. Closing is `shutdown(2)` on the socket, which its holder notices on its
/// own thread and cleans up as if the client had left. The socket is shut down under the table's lock, and the
/// holder reports the close (taking the lock) before it closes the descriptor, so the descriptor is never one the
/// system has reused.
final class ConnectionAdmission: Sendable {
    struct Limits: Sendable {
        var total: Int
        var perPeer: Int
        var idleTimeout: Duration
    }

    /// One open connection: the front door's while the connection waits there, then behind libmicrohttpd's socket
    /// context.
    final class Connection: Sendable {
        let socket: Int32
        /// The peer's `limitGroup`.
        let peer: PeerAddress?
        /// Monotonic nanoseconds when the connection last became idle; 0 while a request is being answered.
        private let idleSince: Atomic<UInt64>

        init(socket: Int32, peer: PeerAddress?) {
            self.socket = socket
            self.peer = peer?.limitGroup
            idleSince = Atomic(ConnectionAdmission.now())
        }

        /// The head of a request arrived.
        func beginRequest() { idleSince.store(0, ordering: .relaxed) }

        /// The request's answer went out (or the request was abandoned).
        func endRequest() { idleSince.store(ConnectionAdmission.now(), ordering: .relaxed) }

        /// When it became idle, or nil while busy.
        var idle: UInt64? {
            let since = idleSince.load(ordering: .relaxed)
            return since == 0 ? nil : since
        }
    }

    private struct Table {
        var open: [ObjectIdentifier: Connection] = [:]
        /// Connections shut down and not yet reported closed: they no longer count against the limits.
        var closing: Set<ObjectIdentifier> = []
        /// Open connections not closing, per peer.
        var perPeer: [PeerAddress: Int] = [:]
        var lastSweep: UInt64 = 0

        var counted: Int { open.count - closing.count }

        mutating func forget(_ peer: PeerAddress?) {
            guard let peer, let count = perPeer[peer] else { return }
            perPeer[peer] = count > 1 ? count - 1 : nil
        }
    }

    let limits: Limits
    private let table = Mutex(Table())

    init(limits: Limits) {
        self.limits = limits
    }

    /// Whether a connection from `peer` may open, after closing idle ones to make room when needed.
    func admit(_ peer: PeerAddress?) -> Bool {
        let peer = peer?.limitGroup
        let now = Self.now()
        return table.withLock { table in
            if now &- table.lastSweep >= Self.nanoseconds(.seconds(1)) {
                table.lastSweep = now
                sweep(&table, now: now)
            }
            if let peer, table.perPeer[peer, default: 0] >= limits.perPeer {
                guard closeLongestIdle(in: &table, where: { $0.peer == peer }) else { return false }
            }
            if table.counted >= limits.total {
                guard closeLongestIdle(in: &table, where: { _ in true }) else { return false }
            }
            return true
        }
    }

    func opened(_ connection: Connection) {
        table.withLock { table in
            table.open[ObjectIdentifier(connection)] = connection
            if let peer = connection.peer { table.perPeer[peer, default: 0] += 1 }
        }
    }

    func closed(_ connection: Connection) {
        let key = ObjectIdentifier(connection)
        table.withLock { table in
            guard table.open.removeValue(forKey: key) != nil else { return }
            if table.closing.remove(key) == nil { table.forget(connection.peer) }
        }
    }

    private func sweep(_ table: inout Table, now: UInt64) {
        let timeout = Self.nanoseconds(limits.idleTimeout)
        for (key, connection) in table.open where !table.closing.contains(key) {
            if let since = connection.idle, now &- since > timeout { close(connection, key: key, in: &table) }
        }
    }

    /// Closes the connection idle longest among those `included`; false when all of them are busy.
    private func closeLongestIdle(in table: inout Table, where included: (Connection) -> Bool) -> Bool {
        var chosen: (key: ObjectIdentifier, connection: Connection, since: UInt64)?
        for (key, connection) in table.open where !table.closing.contains(key) && included(connection) {
            guard let since = connection.idle else { continue }
            if chosen == nil || since < chosen!.since { chosen = (key, connection, since) }
        }
        guard let chosen else { return false }
        close(chosen.connection, key: chosen.key, in: &table)
        return true
    }

    private func close(_ connection: Connection, key: ObjectIdentifier, in table: inout Table) {
        table.closing.insert(key)
        table.forget(connection.peer)
        _ = shutdown(connection.socket, Int32(SHUT_RDWR))
    }

    static func now() -> UInt64 {
        var time = timespec()
        // Not the coarse clock: connections opened within one of its ticks would tie, and the one closed to make
        // room could be the newest rather than the longest idle.
        clock_gettime(CLOCK_MONOTONIC, &time)
        // Never 0, which marks a busy connection.
        return max(1, UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec))
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
