import Synchronization

/// How many writes a collection has had through one `DocumentStore` object since it opened, for caches of
/// what a collection held: an entry stamped with `current` read before the documents it keeps is still what
/// the collection holds while `current` has not moved.
///
/// Every write through the store's API moves it once the write has committed (whether it changed anything,
/// succeeded or failed), before the writer is answered; so does dropping or renaming the collection or its
/// database. A cache checking it therefore sees every write acknowledged before the check. Writes from
/// another process or another store object on the same files are not counted: Switchyard holds its data
/// directory alone.
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

    /// After a database was dropped: every collection of it that anyone watches.
    func advance(database: String) {
        let affected = versions.withLock { versions in versions.filter { $0.key.database == database }.map(\.value) }
        for version in affected { version.advance() }
    }
}
