import Synchronization

/// The catalog as of the last commit, for reads off the store's thread, with an epoch that tells a
/// reader whether the catalog it took still matches the data it read.
///
/// The store's thread makes the epoch odd before committing a transaction that changes the catalog,
/// and even again once the new catalog is published (before any write of that transaction is
/// acknowledged). A reader takes the epoch (even) and the catalog, reads in its own read transaction,
/// and checks the epoch again: unchanged means no catalog change committed in between, so its
/// transaction's data and the catalog belong together.
final class PublishedCatalog: Sendable {
    private let current = Mutex<[Namespace: StoreCore.CollectionState]>([:])
    private let epoch = Atomic<Int>(0)

    /// Before committing a transaction that changes the catalog.
    func beginChange() {
        epoch.add(1, ordering: .sequentiallyConsistent)
    }

    /// After that commit (or its failure), and once when the store opens.
    func publish(_ catalog: [Namespace: StoreCore.CollectionState]) {
        current.withLock { $0 = catalog }
        if epoch.load(ordering: .sequentiallyConsistent) & 1 == 1 { epoch.add(1, ordering: .sequentiallyConsistent) }
    }

    /// The catalog with its epoch; nil while a catalog change is being committed.
    func take() -> (epoch: Int, catalog: [Namespace: StoreCore.CollectionState])? {
        let taken = epoch.load(ordering: .sequentiallyConsistent)
        guard taken & 1 == 0 else { return nil }
        return (taken, current.withLock { $0 })
    }

    /// True when no catalog change has been committed since `take()` returned `epoch`.
    func isCurrent(_ taken: Int) -> Bool {
        epoch.load(ordering: .sequentiallyConsistent) == taken
    }
}
