/// An engine on a database that several store instances (processes) write at once (PostgreSQL). The change log's
/// sequences and the catalog's version belong to the database, not to one instance: a single row (the database's
/// clock) holds both, and the lock on that row, taken by the first append of a transaction and held until it
/// commits, puts every appending transaction of every instance in one order, so sequence order is commit order.
///
/// Catalog coherence is checked, not pushed: every catalog change advances the version first thing in its
/// transaction (and so waits for the transactions appending before it), and every append reads the version it
/// commits under from the row it locks anyway. An instance whose catalog is older than the version finds out in
/// the same statement that numbers its change (`appendChange`, which returns the version), with no round trip of
/// its own, and runs the write again on the new
/// catalog (`StoreCore.catalogIsStale`). A notification (`CommitListener`) only makes it refresh sooner, for reads.
///
/// Caches of what collections hold are pushed, not checked: every transaction that writes a collection tells the
/// other instances which ones once it commits (`announce`, or the notice of an append), and their listeners advance
/// those collections' write versions (`CollectionWriteVersion`).
protocol SharedStorageEngine: StorageEngine {
    /// Advances the catalog's version in the open transaction, before the catalog change's own writes; returns it.
    func advanceCatalogVersion() throws(StoreError) -> Int64
    /// The database's last sequence and the catalog's version, as committed (or as the open transaction left them).
    func clock() throws(StoreError) -> (sequence: Int64, catalogVersion: Int64)
    /// Tells the other instances, once the open transaction commits, that it wrote `namespaces` (those its change-log
    /// appends did not name already).
    func announce(_ namespaces: Set<Namespace>) throws(StoreError)
    /// Starts hearing the commits other instances make, on a thread of its own; `heard` gets the database's last
    /// sequence and catalog version after each (or each few heard together) with the collections they wrote, and
    /// once after the listener starts and after a lost connection is back, with every collection.
    func startCommitListener(
        _ heard: @escaping @Sendable (_ sequence: Int64, _ catalogVersion: Int64, _ wrote: CommittedWrites) -> Void
    ) throws(StoreError) -> any CommitListener
}

/// What hears other instances' commits (`SharedStorageEngine.startCommitListener`).
protocol CommitListener: AnyObject, Sendable {
    /// Stops hearing and returns once its thread has ended.
    func close()
}
