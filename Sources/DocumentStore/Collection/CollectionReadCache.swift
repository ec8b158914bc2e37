import Foundation

/// What reads of one collection returned, kept until the collection is next written: a hit costs a shared lock
/// and a dictionary lookup instead of a query. Sound for every writer going through this store object, since
/// each of their writes moves the collection's `writeVersion` before it is answered (see
/// `CollectionWriteVersion`): an entry is stamped with the version read before its read ran and is used only
/// while the version has not moved. Any write to the collection empties it in effect, so it suits collections
/// read far more than written.
///
/// ```swift
/// let sessions = CollectionReadCache<String, BSONDocument?>(collection: store.database("local").collection("s"))
/// let session = try await sessions.value(for: id) { try await $0.findOne(["_id": .string(id)]) }
/// ```
package final class CollectionReadCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // Unchecked: `entries` is only touched with `lock` held, shared for lookups and exclusive for changes.
    // Readers (every request of a busy server) take it together; a mutex would have them wait on each other.
    package let collection: DocumentCollection
    /// Entries kept at most; when full, it starts over empty.
    package let capacity: Int
    private let version: CollectionWriteVersion
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
    private var entries: [Key: Entry] = [:]

    /// A kept value in a box, so that a lookup under the lock costs one retain however large the value.
    private final class Entry: Sendable {
        let value: Value
        let version: UInt64

        init(value: Value, version: UInt64) {
            self.value = value
            self.version = version
        }
    }

    package init(collection: DocumentCollection, capacity: Int = 1024) {
        self.collection = collection
        self.capacity = max(1, capacity)
        version = collection.writeVersion
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// The value kept for `key` while the collection has not been written since it was read; otherwise what
    /// `read` returns now, kept for next time (errors are not kept).
    nonisolated(nonsending) package func value(for key: Key, read: (DocumentCollection) async throws -> Value)
        async throws -> Value
    {
        let stamp = version.current
        if let kept = kept(for: key, at: stamp) { return kept }
        let entry = Entry(value: try await read(collection), version: stamp)
        pthread_rwlock_wrlock(lock)
        if entries.count >= capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
        entries[key] = entry
        pthread_rwlock_unlock(lock)
        return entry.value
    }

    /// The value kept for `key` while the collection has not been written since it was read; nil otherwise.
    /// Synchronous, for callers on a hot path whose every `await` costs them a switch back to their executor.
    package func kept(for key: Key) -> Value? {
        kept(for: key, at: version.current)
    }

    private func kept(for key: Key, at stamp: UInt64) -> Value? {
        pthread_rwlock_rdlock(lock)
        let kept = entries[key]
        pthread_rwlock_unlock(lock)
        guard let kept, kept.version == stamp else { return nil }
        return kept.value
    }
}
