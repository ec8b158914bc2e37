import Synchronization

/// What reads of one collection returned, kept until the collection is next written: a hit costs a lock and a
/// dictionary lookup instead of a query. Sound for every writer going through this store object, since each of
/// their writes moves the collection's `writeVersion` before it is answered (see `CollectionWriteVersion`): an
/// entry is stamped with the version read before its read ran and is used only while the version has not moved.
/// Any write to the collection empties it in effect, so it suits collections read far more than written.
///
/// ```swift
/// let sessions = CollectionReadCache<String, BSONDocument?>(collection: store.database("local").collection("s"))
/// let session = try await sessions.value(for: id) { try await $0.findOne(["_id": .string(id)]) }
/// ```
public final class CollectionReadCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public let collection: DocumentCollection
    /// Entries kept at most; when full, it starts over empty.
    public let capacity: Int
    private let version: CollectionWriteVersion
    private let entries = Mutex<[Key: (value: Value, version: UInt64)]>([:])

    public init(collection: DocumentCollection, capacity: Int = 1024) {
        self.collection = collection
        self.capacity = max(1, capacity)
        version = collection.writeVersion
    }

    /// The value kept for `key` while the collection has not been written since it was read; otherwise what
    /// `read` returns now, kept for next time (errors are not kept).
    public func value(for key: Key, read: (DocumentCollection) async throws -> Value) async throws -> Value {
        let stamp = version.current
        if let kept = entries.withLock({ $0[key] }), kept.version == stamp { return kept.value }
        let value = try await read(collection)
        entries.withLock { entries in
            if entries.count >= capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = (value, stamp)
        }
        return value
    }
}
