import BSON
import DocumentStore
import Synchronization

/// Open cursors by id: those of `find` and `aggregate` (their results, read as one snapshot, handed out in batches)
/// and change streams. A cursor lives until exhausted, killed, or idle for `idleTimeout`; at most
/// `maximumPerConnection` are open for the connection that made them and `maximumTotal` in all.
final class CursorRegistry: Sendable {
    enum Source: Sendable {
        /// The results not handed out yet: a slice of those read, so each batch taken copies none of the rest.
        case documents(ArraySlice<BSONDocument>)
        case changeStream(ChangeStreamCursor)
    }

    struct Entry: Sendable {
        var namespace: String
        var connection: Int64
        var source: Source
        var lastUsed: ContinuousClock.Instant
        /// Set while a getMore runs on it, so a second getMore is refused rather than interleaved.
        var inUse: Bool
    }

    static let idleTimeout = Duration.seconds(600)
    let maximumPerConnection: Int
    let maximumTotal: Int
    private let entries = Mutex<[Int64: Entry]>([:])

    init(maximumPerConnection: Int = 100, maximumTotal: Int = 1000) {
        self.maximumPerConnection = maximumPerConnection
        self.maximumTotal = maximumTotal
    }

    /// Registers a cursor under a new id, or fails with MongoDB's error when a bound is reached.
    func open(_ source: Source, namespace: String, connection: Int64) throws(StoreError) -> Int64 {
        let expired = reapIdle()
        for cursor in expired { cursor.cancel() }
        return try entries.withLock { entries throws(StoreError) -> Int64 in
            guard entries.count < maximumTotal else {
                throw StoreError(code: 96, message: "too many open cursors: \(maximumTotal) are open in all")
            }
            guard entries.values.count(where: { $0.connection == connection }) < maximumPerConnection else {
                throw StoreError(
                    code: 96, message: "too many open cursors: \(maximumPerConnection) are open for this connection")
            }
            var id: Int64
            repeat { id = Int64.random(in: 1...Int64.max) } while entries[id] != nil
            entries[id] = Entry(
                namespace: namespace, connection: connection, source: source, lastUsed: .now, inUse: false)
            return id
        }
    }

    /// Takes the cursor for a getMore; `release` or `remove` gives it back.
    func checkOut(_ id: Int64, namespace: String) throws(StoreError) -> Entry {
        for cursor in reapIdle() { cursor.cancel() }
        return try entries.withLock { entries throws(StoreError) -> Entry in
            guard var entry = entries[id] else {
                throw StoreError(code: 43, message: "cursor id \(id) not found")
            }
            guard entry.namespace == namespace else {
                throw StoreError(
                    code: .unauthorized,
                    message:
                        "Requested getMore on namespace '\(namespace)', but cursor belongs to a different namespace \(entry.namespace)"
                )
            }
            guard !entry.inUse else {
                throw StoreError(code: 50738, message: "cursor id \(id) is already in use")
            }
            entry.inUse = true
            entries[id] = entry
            return entry
        }
    }

    func release(_ id: Int64, remaining: Source) {
        entries.withLock { entries in
            guard var entry = entries[id] else { return }
            entry.inUse = false
            entry.source = remaining
            entry.lastUsed = .now
            entries[id] = entry
        }
    }

    /// Forgets the cursor; true when it was open.
    @discardableResult
    func remove(_ id: Int64) -> Bool {
        let entry = entries.withLock { $0.removeValue(forKey: id) }
        if case .changeStream(let cursor)? = entry?.source { cursor.cancel() }
        return entry != nil
    }

    func closeAll() {
        let all = entries.withLock { entries in
            defer { entries.removeAll() }
            return Array(entries.values)
        }
        for entry in all { if case .changeStream(let cursor) = entry.source { cursor.cancel() } }
    }

    var count: Int { entries.withLock { $0.count } }

    /// Removes cursors idle past the timeout, returning the change streams among them to cancel.
    private func reapIdle() -> [ChangeStreamCursor] {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            var expired: [ChangeStreamCursor] = []
            for (id, entry) in entries where !entry.inUse && now - entry.lastUsed > Self.idleTimeout {
                entries[id] = nil
                if case .changeStream(let cursor) = entry.source { expired.append(cursor) }
            }
            return expired
        }
    }
}
