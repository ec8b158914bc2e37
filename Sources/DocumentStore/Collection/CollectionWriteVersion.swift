import Synchronization

/// How many writes a collection has had through one `DocumentStore` object since it opened, for caches of
/// what a collection held: an entry stamped with `current` read before the documents it keeps is still what
/// the collection holds while `current` has not moved.
///
/// Every write through the store's API moves it once the write has committed (whether it changed anything,
/// succeeded or failed), before the writer is answered; so does dropping or renaming the collection or its
/// database. A cache checking it therefore sees every write acknowledged before the check. On SQLite (and in
/// memory), writes from another process or another store object on the same files are not counted: Switchyard
/// holds its data directory alone.
///
/// On PostgreSQL, other store instances on the database (other `serve` nodes) tell of every transaction that
/// writes the collection, logged or not (`local`'s too), once it has committed (a `NOTIFY`, which the server
/// delivers only on commit), and this store's listener moves the version when it hears them; when it may have
/// missed some (its connection was lost), it moves every version. That takes a moment: a read here between
/// another instance's commit and this store hearing it (the notification's trip from the server to this store's
/// listener, and the listener reading the clock) may still get what a cache kept before that commit. Only this
/// store's own writes are seen by the very next read.
///
/// ```swift
/// let version = users.writeVersion
/// let stamp = version.current
/// let user = try await users.findOne(["_id": id])
/// // later: `user` is still current while `version.current == stamp`
/// ```
package final class CollectionWriteVersion: Sendable {
    private let count = Atomic<UInt64>(0)

    init() {}

    /// Moves at every write; compare it, never order by it.
    package var current: UInt64 { count.load(ordering: .acquiring) }

    func advance() {
        count.add(1, ordering: .releasing)
    }
}

/// The write versions of one store's collections, made on first use and kept for the store's lifetime (a
/// collection dropped and made again keeps counting where it was).
final class CollectionWriteVersions: Sendable {
    private let versions = Mutex<[Namespace: CollectionWriteVersion]>([:])

    func version(of namespace: Namespace) -> CollectionWriteVersion {
        versions.withLock { versions in
            if let version = versions[namespace] { return version }
            let version = CollectionWriteVersion()
            versions[namespace] = version
            return version
        }
    }

    /// After a write to `namespace` committed (or failed).
    func advance(_ namespace: Namespace) {
        version(of: namespace).advance()
    }

    /// After another instance's commits wrote `wrote`.
    func advance(_ wrote: CommittedWrites) {
        switch wrote {
        case .collections(let namespaces):
            for namespace in namespaces { advance(namespace) }
        case .every:
            for version in versions.withLock({ Array($0.values) }) { version.advance() }
        }
    }

    /// After a database was dropped: every collection of it that anyone watches.
    func advance(database: String) {
        let affected = versions.withLock { versions in versions.filter { $0.key.database == database }.map(\.value) }
        for version in affected { version.advance() }
    }
}
