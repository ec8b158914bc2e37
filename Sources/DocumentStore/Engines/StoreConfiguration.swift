/// How a `DocumentStore` keeps its data.
package struct StoreConfiguration: Sendable {
    package enum Engine: Sendable {
        /// Durable storage in `directory/store.sqlite` (the directory is created when missing).
        case sqlite(directory: String, synchronous: SQLiteSynchronous = .normal)
        /// Nothing survives `close()`; for tests.
        case memory
        /// Durable storage in a PostgreSQL database (schema `switchyard`), as durable as the server's
        /// `synchronous_commit` makes a commit.
        case postgresql(PostgreSQLLocation)
    }

    package var engine: Engine
    /// How long SQLite waits for a lock held by another process before failing.
    package var busyTimeoutMilliseconds: Int32
    /// How much change history is kept for resuming change streams.
    package var changeLogRetention: ChangeLogRetention
    /// The most writes committed together in one transaction.
    package var maximumGroupCommitSize: Int
    /// Opens a SQLite store even when its files hold less than was committed (see `StoreError.dataCorruptionDetected`),
    /// going on with what is left; by default such a store refuses to open.
    package var acceptingDataLoss = false

    package init(
        engine: Engine, busyTimeoutMilliseconds: Int32 = 5_000, changeLogRetention: ChangeLogRetention = .init(),
        maximumGroupCommitSize: Int = 1_000
    ) {
        self.engine = engine
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.changeLogRetention = changeLogRetention
        self.maximumGroupCommitSize = maximumGroupCommitSize
    }

    package static let memory = StoreConfiguration(engine: .memory)

    /// A store in the PostgreSQL database at `url` (`postgresql://user:password@host:port/database`).
    /// - Throws: `StoreError.badValue` when `url` is no PostgreSQL URL.
    package static func postgresql(url: String) throws(StoreError) -> StoreConfiguration {
        StoreConfiguration(engine: .postgresql(try PostgreSQLLocation(url: url)))
    }

    package static func sqlite(directory: String, acceptingDataLoss: Bool = false) -> StoreConfiguration {
        var configuration = StoreConfiguration(engine: .sqlite(directory: directory))
        configuration.acceptingDataLoss = acceptingDataLoss
        return configuration
    }
}

/// SQLite's `synchronous` setting for the WAL.
///
/// The default is `.normal`: in WAL mode a commit has written its frames to the WAL file (through the
/// OS) before it returns, so an acknowledged write survives the process crashing or being killed; only
/// a power loss or kernel crash can drop the last commits, since the WAL is not fsynced per commit.
/// `.full` fsyncs the WAL on every commit (one fsync per group commit), surviving power loss too.
package enum SQLiteSynchronous: String, Sendable {
    case off, normal, full, extra

    var pragmaValue: String { rawValue.uppercased() }
}

/// How much change history to keep. Events beyond every limit are pruned after commits; a change
/// stream resuming from a pruned token fails with `ChangeStreamHistoryLost` (286).
package struct ChangeLogRetention: Sendable {
    /// Events older than this many seconds are pruned (nil: no age limit).
    package var maximumAgeSeconds: Double?
    package var maximumEvents: Int?
    package var maximumBytes: Int?

    package init(maximumAgeSeconds: Double? = 7 * 24 * 3600, maximumEvents: Int? = nil, maximumBytes: Int? = nil) {
        self.maximumAgeSeconds = maximumAgeSeconds
        self.maximumEvents = maximumEvents
        self.maximumBytes = maximumBytes
    }
}
