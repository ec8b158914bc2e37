import BSON

/// A MongoDB-like document store: databases of collections of BSON documents, with indexes, a change
/// log and change streams, kept by SQLite (or PostgreSQL, or in memory). Writes happen on the store's own thread;
/// concurrent writes are group-committed, and none is acknowledged before it is committed. With SQLite,
/// reads run on their caller's thread on a read connection of their own (WAL readers never wait).
///
/// ```swift
/// let store = try await DocumentStore.open(.sqlite(directory: ".switchyard"))
/// let books = store.database("app").collection("books")
/// try await books.insertOne(["title": "Dune"])
/// ```
package final class DocumentStore: Sendable {
    let worker: StoreWorker
    /// Moved after every write, for caches (see `DocumentCollection.writeVersion`); on a shared database, also after
    /// other instances' commits (`StoreWorker`).
    let writeVersions: CollectionWriteVersions
    /// The store instance's leases (`lease(_:changed:)`).
    private let leaseKeeper: any LeaseKeeper

    private init(worker: StoreWorker, writeVersions: CollectionWriteVersions, leaseKeeper: any LeaseKeeper) {
        self.worker = worker
        self.writeVersions = writeVersions
        self.leaseKeeper = leaseKeeper
    }

    /// Opens the store (creating the SQLite file and its directory when missing).
    package static func open(_ configuration: StoreConfiguration) async throws -> DocumentStore {
        let retention = configuration.changeLogRetention
        let busyTimeout = configuration.busyTimeoutMilliseconds
        let engine = configuration.engine
        let acceptingDataLoss = configuration.acceptingDataLoss
        var readers: ReadConnectionPool?
        // A commit that fsyncs stays on the store's thread; one that only writes through the OS (WAL with
        // `synchronous` off or normal, or memory) may run on a lone writer's own thread. A PostgreSQL commit
        // waits for the server (and its disk): never on a writer's thread of the cooperative pool.
        var inlineCommits = true
        switch engine {
        case .sqlite(let directory, let synchronous):
            readers = ReadConnectionPool(path: directory + "/store.sqlite", busyTimeoutMilliseconds: busyTimeout)
            inlineCommits = synchronous == .off || synchronous == .normal
        case .postgresql: inlineCommits = false
        case .memory: break
        }
        let writeVersions = CollectionWriteVersions()
        let worker = try await StoreWorker.start(
            maximumBatch: configuration.maximumGroupCommitSize, readers: readers, inlineCommits: inlineCommits,
            writeVersions: writeVersions
        ) { () throws(StoreError) in
            let storage: any StorageEngine
            switch engine {
            case .memory: storage = MemoryEngine()
            case .postgresql(let location): storage = try PostgreSQLEngine(location)
            case .sqlite(let directory, let synchronous):
                try StoreIdentityFile.checkDatabaseFile(in: directory, acceptingDataLoss: acceptingDataLoss)
                storage = try SQLiteEngine(
                    directory: directory, synchronous: synchronous, busyTimeoutMilliseconds: busyTimeout)
            }
            do throws(StoreError) {
                let core = try StoreCore(engine: storage, retention: retention)
                if case .sqlite(let directory, _) = engine {
                    core.identityFile = try StoreIdentityFile.recording(
                        directory: directory, core: core, acceptingDataLoss: acceptingDataLoss)
                }
                return core
            } catch {
                storage.close()
                throw error
            }
        }
        let leaseKeeper: any LeaseKeeper
        if case .postgresql(let location) = engine {
            leaseKeeper = PostgreSQLLeaseKeeper(location)
        } else {
            leaseKeeper = LocalLeaseKeeper()
        }
        return DocumentStore(worker: worker, writeVersions: writeVersions, leaseKeeper: leaseKeeper)
    }

    /// Finishes queued work and closes the store; change streams end, later calls fail, leases are given up.
    package func close() async {
        leaseKeeper.close()
        await worker.close()
    }

    /// Starts holding the lease `name` exclusively among every store instance on this database (see
    /// `StoreLease`): held at once where this instance is the database's only one (SQLite, memory); on a shared
    /// database (PostgreSQL) tried for every 200 ms until held. `changed` hears each acquisition (`true`) and loss
    /// (`false`) after this returns, in order, on the keeper's thread: it should only pass the news on.
    package func lease(_ name: String, changed: @escaping @Sendable (_ held: Bool) -> Void) -> StoreLease {
        let lease = StoreLease(name: name, keeper: leaseKeeper, changed: changed)
        leaseKeeper.add(lease)
        return lease
    }

    /// Whether other store instances share this one's database, and so its leases (PostgreSQL).
    package var sharesLeases: Bool { leaseKeeper.isShared }

    /// A database of this store; with `access`, its collections read and write only what it permits.
    package func database(_ name: String, access: (any DocumentAccess)? = nil) -> Database {
        Database(store: self, name: name, access: access)
    }

    package func listDatabaseNames() async throws -> [String] {
        try await worker.query { view in view.listDatabaseNames() }
    }

    package func dropDatabase(_ name: String) async throws {
        defer { writeVersions.advance(database: name) }
        try await worker.write { core throws(StoreError) in try core.dropDatabase(name) }
    }

    /// Starts a multi-statement transaction once no other holds the writer (see `StoreTransaction`); `eventFields`
    /// are added to each of its change events, `lifetime` bounds how long it may hold the writer.
    package func startTransaction(eventFields: BSONDocument = [:], lifetime: Duration) async throws(StoreError)
        -> StoreTransaction
    {
        let transaction = StoreTransaction(
            worker: worker, writeVersions: writeVersions, eventFields: eventFields, lifetime: lifetime)
        try await worker.startTransaction(transaction)
        return transaction
    }

    /// Whether the calling task runs in one of this store's transactions (`StoreTransaction.run`).
    package var isInTransaction: Bool { StoreTransaction.current?.worker === worker }

    /// Watches every database.
    package func watch(_ pipeline: [BSONDocument] = [], options: ChangeStreamOptions = .init()) async throws
        -> ChangeStream
    {
        try await watch(scope: .store, pipeline: pipeline, options: options)
    }

    func watch(scope: ChangeStreamScope, pipeline: [BSONDocument], options: ChangeStreamOptions) async throws
        -> ChangeStream
    {
        if !pipeline.isEmpty { _ = try Pipeline(pipeline) }
        let start = try await worker.read { core throws(StoreError) in try core.startingPosition(options) }
        return ChangeStream(worker: worker, scope: scope, options: options, pipeline: pipeline, start: start)
    }
}

/// A database: a name and the collections under it. Databases exist while they hold a collection.
public struct Database: Sendable {
    package let store: DocumentStore
    public let name: String
    /// What its collections' reads and writes are held to; nil permits everything.
    package let access: (any DocumentAccess)?

    public func collection(_ name: String) -> DocumentCollection {
        DocumentCollection(database: self, name: name)
    }

    public func listCollectionNames() async throws -> [String] {
        let name = self.name
        return try await store.worker.query { view in view.listCollectionNames(database: name) }
    }

    /// Creates a collection explicitly (with options); fails with NamespaceExists (48) when it exists.
    @discardableResult
    public func createCollection(_ name: String, options: CreateCollectionOptions = .init()) async throws
        -> DocumentCollection
    {
        let namespace = Namespace(database: self.name, collection: name)
        defer { store.writeVersions.advance(namespace) }
        try await store.worker.write { core throws(StoreError) in try core.createCollection(namespace, options: options)
        }
        return collection(name)
    }

    /// Drops every collection (a `drop` event each) and logs `dropDatabase`.
    public func drop() async throws {
        try await store.dropDatabase(name)
    }

    /// Watches this database's collections; a `dropDatabase` invalidates the stream.
    public func watch(_ pipeline: [BSONDocument] = [], options: ChangeStreamOptions = .init()) async throws
        -> ChangeStream
    {
        try await store.watch(scope: .database(name), pipeline: pipeline, options: options)
    }
}
