/// The store's worker as a collection uses it: the same reads and writes, and after each write (committed or
/// failed) the collection's write version moves, before the writer is answered.
struct CollectionWorker: Sendable {
    let store: DocumentStore
    let namespace: Namespace

    nonisolated(nonsending) func query<T: Sendable>(
        deferringTransaction: Bool = false, _ body: @escaping @Sendable (StoreView) throws(StoreError) -> T
    ) async throws(StoreError) -> T {
        try await store.worker.query(deferringTransaction: deferringTransaction, body)
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (StoreCore) throws(StoreError) -> T) async throws(StoreError)
        -> T
    {
        defer { store.writeVersions.advance(namespace) }
        return try await store.worker.write(body)
    }
}
