/// The store's worker as a collection uses it: the same reads and writes, and after each write (committed or
/// failed) the collection's write version moves, before the writer is answered.
struct CollectionWorker: Sendable {
    let store: DocumentStore
    let namespace: Namespace
    /// Consulted by every document the write inserts, replaces or removes (see `StoreCore.access`).
    let access: (any DocumentAccess)?

    nonisolated(nonsending) func query<T: Sendable>(
        deferringTransaction: Bool = false, _ body: @escaping @Sendable (StoreView) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await store.worker.query(deferringTransaction: deferringTransaction, body)
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (StoreCore) throws(StoreError) -> T) async throws(StoreError)
        -> T
    {
        defer { store.writeVersions.advance(namespace) }
        StoreTransaction.current?.wrote(namespace)
        guard let access else { return try await store.worker.write(body) }
        return try await store.worker.write { core throws(StoreError) in
            core.access = access
            defer { core.access = nil }
            return try body(core)
        }
    }
}
