import BSON
import DocumentStore

/// Users' custom user data as last read from the configured collection, so that a function call or a profile
/// does not query it every time. Entries last until the collection is next written through the app's store
/// (`CollectionReadCache`): the app holds its data directory alone, and every writer in the process (functions,
/// triggers, the client API's `mongodb-atlas` calls, the admin API) goes through that store, so a change is
/// seen by the very next read. A configuration reload naming another collection starts over.
final class CustomUserDataCache: Sendable {
    private let store: DocumentStore
    /// Read by every call of a normal user, replaced only when the settings change.
    private let current = ReadMostly<
        (settings: AuthSettings.CustomUserData, cache: CollectionReadCache<String, BSONDocument>)?
    >(nil)

    init(store: DocumentStore) {
        self.store = store
    }

    /// The user's document (`userIdField` equal to `userId`), empty when there is none.
    nonisolated(nonsending) func document(forUser userId: String, settings: AuthSettings.CustomUserData) async throws
        -> BSONDocument
    {
        try await cache(for: settings).value(for: userId) { collection in
            try await collection.findOne([settings.userIdField: .string(userId)]) ?? [:]
        }
    }

    /// The user's document as the collection holds it now, read past the cache.
    nonisolated(nonsending) func storedDocument(forUser userId: String, settings: AuthSettings.CustomUserData)
        async throws -> BSONDocument
    {
        try await store.database(settings.database).collection(settings.collection).findOne([
            settings.userIdField: .string(userId)
        ]) ?? [:]
    }

    /// The user's document when it is kept from an earlier read, without waiting; nil when it must be read.
    func kept(forUser userId: String, settings: AuthSettings.CustomUserData) -> BSONDocument? {
        cache(for: settings).kept(for: userId)
    }

    private func cache(for settings: AuthSettings.CustomUserData) -> CollectionReadCache<String, BSONDocument> {
        let kept = current.read { current in current.flatMap { $0.settings == settings ? $0.cache : nil } }
        return kept
            ?? current.write { current in
                if let current, current.settings == settings { return current.cache }
                let cache = CollectionReadCache<String, BSONDocument>(
                    collection: store.database(settings.database).collection(settings.collection))
                current = (settings, cache)
                return cache
            }
    }
}
