import BSON
import Synchronization

/// Inserts that wait for the next write of the task that made them and commit in its transaction: a record of
/// something done (the development outbox's record of a push it accepted) commits with the write that says it
/// was done (the queue entry marked processed), so a crash keeps both or neither, and the pair costs one commit.
///
/// A task carries them within `carrying(_:)` (every function run does): `DocumentCollection.insertWithNextWrite`
/// adds one, the task's next write through the same store takes them all into its transaction, and what no write
/// took is inserted when the scope ends. A write that fails leaves them for the next one. A task the scope does not
/// start (the handler of a loopback HTTP request the scope's task sent) joins it by its `key`.
package final class CarriedInserts: Sendable {
    @TaskLocal static var current: CarriedInserts?

    /// The scopes whose key was asked for, by key, until they end.
    private static let open = Mutex([String: CarriedInserts]())

    struct Insert: Sendable {
        let store: DocumentStore
        let prepared: PreparedDocument
        let namespace: Namespace
        /// Runs once the insert is committed.
        let committed: @Sendable () -> Void
    }

    private struct Pending {
        var inserts: [Insert] = []
        /// The scope ended: a task it started that outlives it inserts at once.
        var closed = false
        /// The scope's name in `open`, once asked for.
        var key: String?
    }

    private let pending = Mutex(Pending())

    /// Runs `body` carrying inserts, then inserts what its writes did not take.
    package static func carrying<T>(_ body: () async throws -> T) async throws -> T {
        let inserts = CarriedInserts()
        let result: Result<T, any Error>
        do {
            result = .success(try await $current.withValue(inserts, operation: body))
        } catch {
            result = .failure(error)
        }
        try await inserts.flush()
        return try result.get()
    }

    /// The current scope's key, registering it until the scope ends; nil outside a scope. Random, so that only a
    /// task handed the key can join the scope.
    package static var currentKey: String? {
        guard let scope = current else { return nil }
        return scope.pending.withLock { pending in
            guard !pending.closed else { return nil }
            if let key = pending.key { return key }
            var random = SystemRandomNumberGenerator()
            let key = (0..<2).map { _ in String(random.next() as UInt64, radix: 36) }.joined(separator: "-")
            pending.key = key
            open.withLock { $0[key] = scope }
            return key
        }
    }

    /// Runs `body` carrying its inserts into the scope `key` names, so they commit with that scope's next write;
    /// carrying nothing (inserting at once) when no open scope has that key.
    package static func joining<T, Failure: Error>(_ key: String?, _ body: () async throws(Failure) -> T)
        async throws(Failure) -> T
    {
        let scope = key.flatMap { key in open.withLock { $0[key] } }
        // Through a `Result`: the task-local's `withValue` rethrows untyped.
        let result = await $current.withValue(scope) { () async -> Result<T, Failure> in
            do throws(Failure) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Runs `body` with writes that carry nothing (and inserts that wait for nothing).
    package static func withoutCarrying<T>(_ body: () async throws -> T) async throws -> T {
        try await $current.withValue(nil, operation: body)
    }

    /// False when the scope already ended.
    func add(_ insert: Insert) -> Bool {
        pending.withLock { pending in
            guard !pending.closed else { return false }
            pending.inserts.append(insert)
            return true
        }
    }

    /// The inserts into `store`, taken by a write to it.
    func take(for store: DocumentStore) -> [Insert] {
        pending.withLock { pending in
            guard !pending.inserts.isEmpty else { return [] }
            if pending.inserts.allSatisfy({ $0.store === store }) {
                defer { pending.inserts.removeAll() }
                return pending.inserts
            }
            let taken = pending.inserts.filter { $0.store === store }
            pending.inserts.removeAll { $0.store === store }
            return taken
        }
    }

    /// Inserts taken by a write that failed, left for the next one.
    func putBack(_ inserts: [Insert]) {
        pending.withLock { $0.inserts.insert(contentsOf: inserts, at: 0) }
    }

    /// Inserts everything still waiting, one transaction per store.
    private func flush() async throws {
        var inserts = pending.withLock { pending in
            pending.closed = true
            if let key = pending.key { _ = Self.open.withLock { $0.removeValue(forKey: key) } }
            defer { pending.inserts.removeAll() }
            return pending.inserts
        }
        while let store = inserts.first?.store {
            let forStore = inserts.filter { $0.store === store }
            inserts.removeAll { $0.store === store }
            try await store.worker.write { core throws(StoreError) in try Self.perform(forStore, in: core) }
            Self.committed(forStore, in: store)
        }
    }

    /// Inserts `inserts` in the transaction under way.
    static func perform(_ inserts: [Insert], in core: StoreCore) throws(StoreError) {
        for insert in inserts {
            try core.insertDocument(try core.collectionCreatingIfNeeded(insert.namespace), insert.prepared)
        }
    }

    /// After the commit: the collections' write versions move and the writers hear of it.
    static func committed(_ inserts: [Insert], in store: DocumentStore) {
        for insert in inserts {
            store.writeVersions.advance(insert.namespace)
            insert.committed()
        }
    }
}
