import Synchronization

/// Read-only SQLite connections for reads on their caller's thread.
///
/// The project's rule is that a blocking C call (an SQLite commit) runs on a thread of its own, never
/// on the cooperative pool; commits stay on the store's thread. A read here is not such a call: in WAL
/// mode a reader never waits for the writer (it reads the last committed snapshot from the database
/// file and the WAL, without taking a lock the writer holds) and never fsyncs; it costs what reading
/// its pages costs, mostly from memory. The hop to the store's thread and back would cost more than
/// the read itself.
final class ReadConnectionPool: Sendable {
    private struct State {
        var idle: [ReadConnection] = []
        var isClosed = false
    }

    private let path: String
    private let busyTimeoutMilliseconds: Int32
    private let state = Mutex(State())
    /// Idle connections kept for reuse; more may be open while many threads read at once. Opening one costs
    /// far more than a read, so the pool keeps as many as a busy server has reading threads (`serve` has a
    /// thread per connection) rather than closing them as soon as the burst is over.
    private let maximumIdle = 64

    /// `path` is an existing store database (the store's thread creates it before any read).
    init(path: String, busyTimeoutMilliseconds: Int32) {
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }

    /// Runs `body` in a read transaction with the published catalog; nil when the catalog changed
    /// meanwhile (the caller then reads on the store's thread).
    ///
    /// With `deferringTransaction`, none is begun before `body`: the view's `deferredTransaction` begins
    /// one when the read needs more than one statement (`StoreView.beginDeferredTransaction()`). A single
    /// statement needs none: in WAL mode it reads one committed snapshot by itself, and BEGIN and COMMIT
    /// around it cost as much as planning the query.
    func read<T>(
        catalog published: PublishedCatalog, deferringTransaction: Bool = false,
        _ body: (StoreView) throws(StoreError) -> T
    ) throws(StoreError) -> T? {
        let connection = try checkOut()
        defer { checkIn(connection) }
        // A catalog change committing concurrently is rare; retrying once covers the usual case.
        for _ in 0..<2 {
            guard let (epoch, catalog) = published.take() else { return nil }
            if !deferringTransaction { try connection.beginTransaction() }
            let result = Result { () throws(StoreError) in
                try body(
                    StoreView(
                        engine: connection.engine, catalog: catalog,
                        deferredTransaction: deferringTransaction ? connection : nil))
            }
            connection.endTransaction()
            // Whether or not a transaction was begun, the statements ran after `take()`: an unchanged
            // epoch means they saw no catalog change the taken catalog lacks.
            if published.isCurrent(epoch) { return try result.get() }
        }
        return nil
    }

    private func checkOut() throws(StoreError) -> ReadConnection {
        let taken: ReadConnection?? = state.withLock { state in
            state.isClosed ? nil : .some(state.idle.popLast())
        }
        guard let taken else { throw StoreWorker.closedError }
        if let taken { return taken }
        return ReadConnection(
            engine: try SQLiteEngine(readingFrom: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds))
    }

    private func checkIn(_ connection: ReadConnection) {
        let kept = state.withLock { state in
            guard !state.isClosed, state.idle.count < maximumIdle else { return false }
            state.idle.append(connection)
            return true
        }
        if !kept { connection.engine.close() }
    }

    /// Closes the idle connections; connections in use close when their read is done.
    func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { connection.engine.close() }
    }
}

/// One read-only connection, and whether a read transaction is open on it.
final class ReadConnection: @unchecked Sendable {
    // Unchecked: a connection is used by one thread at a time: it is either idle in the pool (touched
    // only under the pool's lock) or checked out by exactly one read.
    let engine: SQLiteEngine
    private var inTransaction = false

    init(engine: SQLiteEngine) {
        self.engine = engine
    }

    /// Begins a read transaction unless one is open: its statements see one committed snapshot.
    func beginTransaction() throws(StoreError) {
        guard !inTransaction else { return }
        try engine.beginRead()
        inTransaction = true
    }

    func endTransaction() {
        guard inTransaction else { return }
        engine.endRead()
        inTransaction = false
    }
}
