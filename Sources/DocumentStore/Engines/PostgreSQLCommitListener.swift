import CLibPQ
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The store instance's one listening connection (`LISTEN switchyard_changes`), on a thread of its own that sleeps
/// in `poll` on the connection's socket: every transaction that appends to the change log or writes a collection
/// notifies the channel (`PostgreSQLEngine.appendChange`, `announce`), so a notification arrives only once it
/// committed. Notifications of this instance's own commits (their notice names `instance`) are dropped: its store
/// publishes those itself. For the others, once the pending ones are read, the listener reads the clock (one query
/// however many arrived together) and hears its sequence and catalog version with the collections their notices
/// name (`PostgreSQLCommitNotice`).
///
/// A lost connection is connected again (every `reconnectDelay`, until it is back or the listener closes); once it
/// listens again, the clock it then reads is heard as one commit that wrote every collection, which wakes every
/// stream that may have missed something meanwhile to read the log from its position, and every cache to read
/// again.
final class PostgreSQLCommitListener: CommitListener, @unchecked Sendable {
    // Unchecked: `connection` is touched by the listener's thread only, and by `close` after that thread ended;
    // the pipe's descriptors are fixed at init.
    private var connection: OpaquePointer?
    private let location: PostgreSQLLocation
    private let instance: String
    private let heard: @Sendable (Int64, Int64, CommittedWrites) -> Void
    /// Written to by `close` to wake the thread from `poll`.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let closing = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)

    /// The notification channel, the same in every instance on the database.
    static let channel = "switchyard_changes"
    /// The listening connection's `application_name`, which names it in `pg_stat_activity`.
    static let applicationName = "switchyard-listener"
    static let reconnectDelay: Int32 = 200

    init(
        _ location: PostgreSQLLocation, instance: String,
        heard: @escaping @Sendable (Int64, Int64, CommittedWrites) -> Void
    ) throws(StoreError) {
        self.location = location
        self.instance = instance
        self.heard = heard
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            throw .cannotOpenStore("cannot listen to PostgreSQL at \(location): no pipe (errno \(errno))")
        }
        (wakeRead, wakeWrite) = (descriptors[0], descriptors[1])
        connection = location.connect(applicationName: Self.applicationName)
        guard let clock = listen() else {
            let message = connection.map { Self.message(PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(connection)
            Glibc.close(wakeRead)
            Glibc.close(wakeWrite)
            throw .cannotOpenStore("cannot listen to PostgreSQL at \(location): \(message)")
        }
        // The store read the clock before this connection listened: a commit in between is heard now, and whatever
        // it wrote is unknown.
        let thread = Thread { [self] in
            heard(clock.sequence, clock.catalogVersion, .every)
            run()
            ended.signal()
        }
        thread.name = "DocumentStore listener"
        thread.start()
    }

    func close() {
        guard !closing.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        ended.wait()
        PQfinish(connection)
        connection = nil
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    /// Listens on the channel and reads the clock (after listening, so no commit falls between the two); nil when
    /// the connection failed.
    private func listen() -> (sequence: Int64, catalogVersion: Int64)? {
        guard let connection, PQstatus(connection) == CONNECTION_OK else { return nil }
        let result = PQexec(connection, "LISTEN \(Self.channel)")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { return nil }
        return readClock(connection)
    }

    /// The database's last sequence and catalog version, as committed; nil when the connection failed.
    private func readClock(_ connection: OpaquePointer) -> (sequence: Int64, catalogVersion: Int64)? {
        let result = PQexec(connection, "SELECT sequence, catalog FROM switchyard.clock")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK, PQntuples(result) == 1,
            let sequence = Int64(String(cString: PQgetvalue(result, 0, 0))),
            let catalog = Int64(String(cString: PQgetvalue(result, 0, 1)))
        else { return nil }
        return (sequence, catalog)
    }

    private func run() {
        while !closing.load(ordering: .acquiring) {
            guard let connection, PQstatus(connection) == CONNECTION_OK else {
                reconnect()
                continue
            }
            // Notifications libpq read while it ran a query (the clock's, `LISTEN`) are in its buffer and never
            // wake `poll`: taken first, every time round.
            if let wrote = writesNotifiedByOthers(connection) {
                if let clock = readClock(connection) {
                    heard(clock.sequence, clock.catalogVersion, wrote)
                } else {
                    reconnect()
                }
                continue
            }
            var descriptors = [
                pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&descriptors, 2, -1) >= 0 || errno == EINTR else { return }
            if descriptors[1].revents != 0 { return }
            // A lost connection (a terminated backend, a restarted server) fails here or leaves its status bad.
            if descriptors[0].revents != 0, PQconsumeInput(connection) != 1 || PQstatus(connection) != CONNECTION_OK {
                reconnect()
            }
        }
    }

    /// Takes the notifications libpq holds: what those from other instances say was written; nil when none was.
    private func writesNotifiedByOthers(_ connection: OpaquePointer) -> CommittedWrites? {
        var wrote: CommittedWrites?
        while let notification = PQnotifies(connection) {
            defer { PQfreemem(notification) }
            guard let payload = notification.pointee.extra,
                let others = PostgreSQLCommitNotice.wrote(String(cString: payload), unlessBy: instance)
            else { continue }
            wrote = wrote?.union(others) ?? others
        }
        return wrote
    }

    /// Connects again until the connection listens or the listener closes, waiting `reconnectDelay` between tries.
    private func reconnect() {
        while !closing.load(ordering: .acquiring) {
            if let connection {
                PQreset(connection)
            } else {
                connection = location.connect(applicationName: Self.applicationName)
            }
            if hearAfterReconnecting() { return }
            var wake = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            _ = poll(&wake, 1, Self.reconnectDelay)
        }
    }

    /// Listens on the connection just made and hears the clock as one commit that wrote anything (notices may have
    /// been missed); false when it failed.
    private func hearAfterReconnecting() -> Bool {
        guard let clock = listen() else { return false }
        heard(clock.sequence, clock.catalogVersion, .every)
        return true
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
