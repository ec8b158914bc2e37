import CLibPQ
import Foundation
import Synchronization

/// A store instance's leases on a shared PostgreSQL database: session advisory locks (`pg_try_advisory_lock` on
/// the lease's key) on one connection of their own (`application_name` `switchyard-leases`), kept by a thread of
/// its own. Every `checkInterval` it tries for the leases it does not hold and checks the connection with a query;
/// the server releases a session's advisory locks when the session ends, so when that connection is lost (a
/// terminated backend, a restarted server, a network failure) every lease it held is lost at once, and the keeper
/// connects again and tries anew. The thread and its connection start with the first lease.
final class PostgreSQLLeaseKeeper: LeaseKeeper, @unchecked Sendable {
    // Unchecked: `connection` is touched by the keeper's thread only, and by `close` after that thread ended;
    // everything else shared sits in `state`.
    private struct State {
        var leases: [ObjectIdentifier: StoreLease] = [:]
        /// Keys to unlock on the connection (leases released while held).
        var unlocking: [Int64] = []
        var started = false
        var closing = false
    }

    private let location: PostgreSQLLocation
    private let state = Mutex(State())
    private var connection: OpaquePointer?
    /// Signalled to try at once (a new lease, a release) or to end the thread.
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    static let applicationName = "switchyard-leases"
    static let checkInterval = DispatchTimeInterval.milliseconds(200)

    init(_ location: PostgreSQLLocation) {
        self.location = location
    }

    var isShared: Bool { true }

    func add(_ lease: StoreLease) {
        let start = state.withLock { state -> Bool in
            guard !state.closing else { return false }
            state.leases[ObjectIdentifier(lease)] = lease
            defer { state.started = true }
            return !state.started
        }
        if start {
            let thread = Thread { [self] in
                run()
                ended.signal()
            }
            thread.name = "DocumentStore leases"
            thread.start()
        } else {
            wake.signal()
        }
    }

    func remove(_ lease: StoreLease, wasHeld: Bool) {
        state.withLock { state in
            if state.leases.removeValue(forKey: ObjectIdentifier(lease)) != nil, wasHeld {
                state.unlocking.append(lease.key)
            }
        }
        wake.signal()
    }

    func close() {
        let started = state.withLock { state -> Bool in
            state.closing = true
            return state.started
        }
        guard started else { return }
        wake.signal()
        ended.wait()
        // Ending the session releases its locks.
        PQfinish(connection)
        connection = nil
    }

    private var isClosing: Bool { state.withLock { $0.closing } }

    private func run() {
        while !isClosing {
            keep()
            _ = wake.wait(timeout: .now() + Self.checkInterval)
        }
    }

    /// One round: connects when needed, unlocks what was released, tries for what is not held, checks the rest.
    private func keep() {
        if connection == nil || PQstatus(connection) != CONNECTION_OK {
            loseAll()
            PQfinish(connection)
            connection = Self.connect(location)
            guard PQstatus(connection) == CONNECTION_OK else { return }
        }
        let (leases, unlocking) = state.withLock { state -> ([StoreLease], [Int64]) in
            defer { state.unlocking = [] }
            return (Array(state.leases.values), state.unlocking)
        }
        for key in unlocking where run("SELECT pg_advisory_unlock(\(key))") == nil { return dropConnection() }
        var heldKeys = Set(leases.filter { $0.tenure != nil }.map(\.key))
        var checked = false
        for lease in leases where lease.tenure == nil && !heldKeys.contains(lease.key) {
            // The key is the lease's own, an integer: nothing from outside is spliced into the statement.
            guard let answer = run("SELECT pg_try_advisory_lock(\(lease.key))") else { return dropConnection() }
            checked = true
            guard answer == "t" else { continue }
            heldKeys.insert(lease.key)
            lease.grant()
            // Released while the lock was being taken: given up again at once.
            if lease.isReleased, run("SELECT pg_advisory_unlock(\(lease.key))") == nil { return dropConnection() }
        }
        if !checked, !heldKeys.isEmpty, run("SELECT 1") == nil { dropConnection() }
    }

    /// The first value of a one-row answer; nil when the statement failed (the connection is lost).
    private func run(_ sql: String) -> String? {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK, PQntuples(result) == 1 else { return nil }
        return String(cString: PQgetvalue(result, 0, 0))
    }

    /// The session is gone or unusable, and its locks with it: every lease counts as lost now, and the next round
    /// connects again.
    private func dropConnection() {
        loseAll()
        PQfinish(connection)
        connection = nil
    }

    private func loseAll() {
        let leases = state.withLock { Array($0.leases.values) }
        for lease in leases { lease.lose() }
    }

    /// A connection named `applicationName`, with a `connect_timeout` of 10 s unless the URL sets one (see
    /// `PostgreSQLCommitListener`).
    private static func connect(_ location: PostgreSQLLocation) -> OpaquePointer? {
        let keywords: [UnsafeMutablePointer<CChar>?] = [
            strdup("connect_timeout"), strdup("dbname"), strdup("application_name"), nil,
        ]
        let values: [UnsafeMutablePointer<CChar>?] = [strdup("10"), strdup(location.url), strdup(applicationName), nil]
        defer { for pointer in keywords + values { free(pointer) } }
        return PQconnectdbParams(
            keywords.map { $0.map { UnsafePointer($0) } }, values.map { $0.map { UnsafePointer($0) } }, 1)
    }
}
