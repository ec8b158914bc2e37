import BSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store's logic over a `StorageEngine`: catalog, documents and indexes, and the change log.
/// Confined to the store's own thread (`StoreWorker`); never touched from anywhere else.
final class StoreCore {
    struct CollectionState: Sendable {
        var record: CollectionRecord
        var indexes: [IndexDefinition] {
            didSet { plans = QueryPlanCache() }
        }
        /// Plans made for these indexes: replaced with them, so that no plan outlives its indexes.
        private(set) var plans = QueryPlanCache()

        /// The matcher and plan of `filter` in this collection.
        func compile(_ filter: BSONDocument) throws(StoreError) -> (matcher: DocumentMatcher, plan: QueryPlan) {
            try plans.compile(filter, indexes: indexes)
        }

        var namespace: Namespace { Namespace(database: record.database, collection: record.name) }
        var recordsImages: Bool {
            record.options["changeStreamPreAndPostImages"]?.documentValue?["enabled"]?.boolValue ?? false
        }
    }

    /// What a rolled-back savepoint must restore besides the engine's own data.
    struct Snapshot {
        var catalog: [Namespace: CollectionState]
        var lastSequence: Int64
        var logCount: Int
        var logBytes: Int
        var clusterTime: BSONTimestamp
        var catalogVersion: Int64?
        var unannounced: Set<Namespace>
    }

    let engine: any StorageEngine
    /// The engine when other instances share its database.
    let shared: (any SharedStorageEngine)?
    let retention: ChangeLogRetention
    var catalog: [Namespace: CollectionState] = [:] {
        didSet { catalogGeneration &+= 1 }
    }
    /// Changes whenever `catalog` is assigned, so a commit knows whether readers need a new catalog.
    private(set) var catalogGeneration = 0
    var lastSequence: Int64 = 0
    /// Records the committed position for noticing lost data at the next start (SQLite stores only).
    var identityFile: StoreIdentityFile?
    /// Every change up to this sequence has been pruned; resuming before it loses history.
    var prunedThrough: Int64 = 0
    var logCount = 0
    var logBytes = 0
    var oldestWallTime: Int64?
    var clusterTime = BSONTimestamp(time: 0, increment: 0)
    /// The access the running write is held to, set for the length of one write: every document it inserts,
    /// replaces or removes is authorized inside the transaction, so a refusal rolls the whole write back.
    var access: (any DocumentAccess)?
    /// The tag of the running write's task (`StoreWriteOrigin`), set for the length of one write: every change-log
    /// entry it appends keeps it.
    var writeOrigin: String?
    /// Fields every change event of the open multi-statement transaction carries (`StoreTransaction.eventFields`).
    var transactionFields: BSONDocument? {
        didSet { transactionClusterTime = nil }
    }
    /// The cluster time every event of the open multi-statement transaction carries, as MongoDB's share their
    /// transaction's: set by its first event.
    private var transactionClusterTime: BSONTimestamp?
    /// The entries this transaction appended to the change log, for the streams once it commits.
    private(set) var appendedChanges: [CommittedChange] = []
    /// The version of the database's catalog that `catalog` was read at or has brought about (shared engines only).
    private(set) var catalogVersion: Int64?
    /// Set when the open transaction found `catalog` older than the database's: it must be rolled back, the
    /// catalog read again (`loadCatalog`) and the work run again.
    private(set) var catalogIsStale = false
    /// The collections the open transaction wrote that no notice of its appends names (shared engines only): the
    /// other instances hear of them from `announceWrites`, before the commit.
    private(set) var unannounced: Set<Namespace> = []

    init(engine: any StorageEngine, retention: ChangeLogRetention) throws(StoreError) {
        self.engine = engine
        shared = engine as? any SharedStorageEngine
        self.retention = retention
        try loadCatalog()
        let summary = try engine.changeLogSummary()
        prunedThrough = try engine.metadata("prunedThrough") ?? 0
        lastSequence = max(summary.lastSequence ?? 0, prunedThrough, try shared?.clock().sequence ?? 0)
        logCount = summary.count
        logBytes = summary.bytes
        oldestWallTime = try engine.oldestChanges(limit: 1).first?.wallTime
    }

    /// Reads the catalog. The version is read first: a catalog change committed between the two reads leaves an
    /// older version with the newer catalog, which the next write only takes for stale and reads again.
    func loadCatalog() throws(StoreError) {
        let version = try shared?.clock().catalogVersion
        var states: [Int64: CollectionState] = [:]
        for record in try engine.collections() { states[record.id] = CollectionState(record: record, indexes: []) }
        for index in try engine.indexes() {
            let spec = index.specification
            guard let keys = spec["key"]?.documentValue, let name = spec["name"]?.stringValue else {
                throw .location(17_002, "index \(index.id) has a corrupt catalog entry \(spec)")
            }
            let definition = try IndexDefinition(
                id: index.id, name: name, keyPattern: keys, unique: spec["unique"]?.boolValue ?? false)
            states[index.collection]?.indexes.append(definition)
        }
        catalog = Dictionary(uniqueKeysWithValues: states.values.map { ($0.namespace, $0) })
        catalogVersion = version
        catalogIsStale = false
    }

    // MARK: Transactions

    var snapshot: Snapshot {
        Snapshot(
            catalog: catalog, lastSequence: lastSequence, logCount: logCount, logBytes: logBytes,
            clusterTime: clusterTime, catalogVersion: catalogVersion, unannounced: unannounced)
    }

    func restore(_ snapshot: Snapshot) {
        catalog = snapshot.catalog
        lastSequence = snapshot.lastSequence
        logCount = snapshot.logCount
        logBytes = snapshot.logBytes
        clusterTime = snapshot.clusterTime
        catalogVersion = snapshot.catalogVersion
        unannounced = snapshot.unannounced
        if appendedChanges.last.map({ $0.sequence > snapshot.lastSequence }) ?? false {
            appendedChanges.removeAll { $0.sequence > snapshot.lastSequence }
        }
    }

    /// Notes that the open transaction wrote `namespace` (its documents, indexes or catalog entry), which the other
    /// instances on a shared database must hear of once it commits, for their caches (`CollectionWriteVersion`).
    func wrote(_ namespace: Namespace) {
        if shared != nil { unannounced.insert(namespace) }
    }

    /// Tells the other instances, once the open transaction commits, of the collections it wrote that no notice
    /// of its appends named; call it right before the commit.
    func announceWrites() throws(StoreError) {
        guard let shared, !unannounced.isEmpty else { return }
        try shared.announce(unannounced)
        unannounced.removeAll(keepingCapacity: true)
    }

    /// Forgets the entries appended so far (their transaction committed and they were published),
    /// keeping the room for the next transaction's.
    func clearAppendedChanges() {
        appendedChanges.removeAll(keepingCapacity: true)
    }

    /// Runs `body` inside a savepoint: on error its writes (and the in-memory state that goes with
    /// them) are undone and the rest of the transaction goes on.
    func withSavepoint<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let saved = snapshot
        try engine.createSavepoint()
        do {
            let result = try body()
            try engine.releaseSavepoint()
            return result
        } catch {
            engine.rollbackToSavepoint()
            restore(saved)
            throw error
        }
    }

    // MARK: Catalog

    /// Called first thing in every change of the catalog: on a shared engine, advances the database's catalog
    /// version, which waits for the instances appending before it and makes every later append of theirs find their
    /// catalog stale. A version that moved past this instance's means its catalog is stale itself.
    func markCatalogChange() throws(StoreError) {
        guard let shared, let known = catalogVersion else { return }
        let version = try shared.advanceCatalogVersion()
        guard version == known + 1 else { throw staleCatalog() }
        catalogVersion = version
    }

    /// Marks the open transaction stale and returns `staleCatalogError`.
    private func staleCatalog() -> StoreError {
        catalogIsStale = true
        return Self.staleCatalogError
    }

    /// What a writer gets when its write found the catalog stale more often than the store runs it again, or its
    /// multi-statement transaction did: MongoDB's transient WriteConflict, which a client retries.
    static let staleCatalogError = StoreError(
        code: .writeConflict,
        message: "another instance on the database changed its collections or indexes meanwhile: retry the write")

    /// Where a stream opened now starts: after the newest change in the database.
    func newestSequence() throws(StoreError) -> Int64 {
        try shared?.clock().sequence ?? lastSequence
    }

    func collection(_ namespace: Namespace) -> CollectionState? { catalog[namespace] }

    /// Reads in the current transaction (writes) or between transactions (reads on the store's thread).
    var view: StoreView { StoreView(engine: engine, catalog: catalog) }

    /// The collection, created implicitly (as MongoDB does on first write) when missing, with `options`.
    /// A creation logs a `create` event (shown to `showExpandedEvents` streams), implicit or not, as
    /// MongoDB's oplog has one either way; `logged: false` leaves it out for a recreation the log never saw
    /// the collection leave (`replaceContents`).
    func collectionCreatingIfNeeded(_ namespace: Namespace, options: BSONDocument = [:], logged: Bool = true)
        throws(StoreError) -> CollectionState
    {
        if let state = catalog[namespace] { return state }
        try Namespace.validate(database: namespace.database)
        try Namespace.validate(collection: namespace.collection, in: namespace.database)
        try markCatalogChange()
        let id = try engine.insertCollection(
            database: namespace.database, name: namespace.collection, options: options)
        wrote(namespace)
        let state = CollectionState(
            record: CollectionRecord(
                id: id, database: namespace.database, name: namespace.collection, options: options),
            indexes: [])
        catalog[namespace] = state
        if logged {
            // MongoDB's description is the create command less its name: the options, then the `_id` index.
            var description = options
            description.append("idIndex", ["v": .int32(2), "key": ["_id": .int32(1)], "name": "_id_"])
            try appendChange([
                "operationType": "create", "ns": namespaceDocument(namespace),
                "operationDescription": .document(description),
            ])
        }
        return state
    }

    // MARK: Change log

    static func now() -> (seconds: UInt32, milliseconds: Int64) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return (UInt32(truncatingIfNeeded: spec.tv_sec), Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    /// Appends one event (in the current transaction). `fields` hold everything but `_id`, `clusterTime`
    /// and `wallTime`; `embedding` is a last field given as an encoded document.
    func appendChange(_ fields: BSONDocument, embedding embedded: (key: String, bytes: [UInt8])? = nil)
        throws(StoreError)
    {
        let ns = fields["ns"]?.documentValue
        let database = ns?["db"]?.stringValue
        if let database, Namespace.unloggedDatabases.contains(database) { return }
        var namespace: Namespace?
        if let database, let collection = ns?["coll"]?.stringValue {
            namespace = Namespace(database: database, collection: collection)
        }
        try appendChange(encoded: try ChangeEventEncoding.encode(fields, embedding: embedded), namespace: namespace)
    }

    /// Appends an event from `ChangeEventEncoding.encode`, stamped with this commit's times. `insert`
    /// describes an insert's event for the streams that read it from memory; `namespace` is the collection the
    /// event is about (nil for a database's), which the append's notice names on a shared engine.
    func appendChange(encoded event: [UInt8], insert: CommittedChange.Insert? = nil, namespace: Namespace?)
        throws(StoreError)
    {
        var event = event
        var insert = insert
        if let transactionFields {
            try ChangeEventEncoding.append(transactionFields, to: &event)
            // The streams decode the stored entry, which has the transaction's fields, instead.
            insert = nil
        }
        let now = Self.now()
        if transactionFields == nil || transactionClusterTime == nil {
            clusterTime =
                now.seconds > clusterTime.time
                ? BSONTimestamp(time: now.seconds, increment: 1)
                : BSONTimestamp(time: clusterTime.time, increment: clusterTime.increment &+ 1)
            if transactionFields != nil { transactionClusterTime = clusterTime }
        }
        ChangeEventEncoding.stamp(&event, clusterTime: clusterTime, wallTime: now.milliseconds)
        var record = ChangeRecord(
            sequence: lastSequence + 1, wallTime: now.milliseconds, event: event, origin: writeOrigin,
            namespace: shared == nil ? nil : namespace)
        let appended = try engine.appendChange(record)
        if let version = appended.catalogVersion, version != catalogVersion { throw staleCatalog() }
        if let namespace = record.namespace { unannounced.remove(namespace) }
        let sequence = appended.sequence
        record.sequence = sequence
        appendedChanges.append(CommittedChange(record: record, clusterTime: clusterTime, insert: insert))
        lastSequence = sequence
        logCount += 1
        logBytes += event.count
        // On a shared database the log holds every instance's appends, not only the ones counted here: its
        // sequences have no gaps, so it holds those after the last prune this instance knows of (a prune by
        // another makes that too many, which the next prune corrects).
        if shared != nil { logCount = Int(sequence - prunedThrough) }
        if oldestWallTime == nil { oldestWallTime = now.milliseconds }
    }

    var needsPruning: Bool {
        if let maximum = retention.maximumEvents, logCount > maximum { return true }
        if let maximum = retention.maximumBytes, logBytes > maximum { return true }
        if let age = retention.maximumAgeSeconds, let oldest = oldestWallTime {
            return Double(Self.now().milliseconds - oldest) > age * 1000
        }
        return false
    }

    /// Deletes the oldest events beyond the retention limits (in the current transaction).
    func pruneChangeLog() throws(StoreError) {
        if shared != nil { try readSharedLogExtent() }
        let cutoff = retention.maximumAgeSeconds.map { Self.now().milliseconds - Int64($0 * 1000) }
        var through: Int64?
        var count = logCount
        var bytes = logBytes
        scanning: while true {
            let rows = try engine.oldestChanges(limit: 512)
            var advanced = false
            for row in rows where row.sequence > (through ?? .min) {
                let tooMany = retention.maximumEvents.map { count > $0 } ?? false
                let tooBig = retention.maximumBytes.map { bytes > $0 } ?? false
                let tooOld = cutoff.map { row.wallTime < $0 } ?? false
                guard tooMany || tooBig || tooOld else { break scanning }
                through = row.sequence
                count -= 1
                bytes -= row.bytes
                advanced = true
            }
            guard advanced, rows.count == 512 else { break }
            if let through { try engine.deleteChanges(through: through) }
        }
        guard let through else { return }
        try engine.deleteChanges(through: through)
        if through > prunedThrough {
            try engine.setMetadata("prunedThrough", through)
            prunedThrough = through
        }
        logCount = count
        logBytes = bytes
        oldestWallTime = try engine.oldestChanges(limit: 1).first?.wallTime
    }

    /// The log as every instance on the shared database left it, before pruning: where the last prune of any of
    /// them ended, how many entries follow it up to this instance's last append, their bytes when a byte limit
    /// applies (the one figure that takes reading the log), and its oldest entry's time.
    private func readSharedLogExtent() throws(StoreError) {
        prunedThrough = max(prunedThrough, try engine.metadata("prunedThrough") ?? 0)
        logCount = Int(max(0, lastSequence - prunedThrough))
        if retention.maximumBytes != nil { logBytes = try engine.changeLogSummary().bytes }
        oldestWallTime = try engine.oldestChanges(limit: 1).first?.wallTime
    }
}
