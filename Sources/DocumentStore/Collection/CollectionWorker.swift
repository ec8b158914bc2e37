/// The store's worker as a collection uses it: the same reads and writes, and after each write (committed or
/// failed) the collection's write version moves, before the writer is answered. A write takes the inserts its
/// task carries (`CarriedInserts`) into its transaction.
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
        let carrier = CarriedInserts.current
        let carried = carrier?.take(for: store) ?? []
        if carried.isEmpty && access == nil { return try await store.worker.write(body) }
        let access = self.access
        do throws(StoreError) {
            let result = try await store.worker.write { core throws(StoreError) in
                // The carried inserts are the system's records, not the writer's: its access does not apply.
                try CarriedInserts.perform(carried, in: core)
                guard let access else { return try body(core) }
                core.access = access
                defer { core.access = nil }
                return try body(core)
            }
            CarriedInserts.committed(carried, in: store)
            return result
        } catch {
            carrier?.putBack(carried)
            throw error
        }
    }
}
