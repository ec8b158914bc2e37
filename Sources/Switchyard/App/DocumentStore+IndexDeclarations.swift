import DocumentStore

extension DocumentStore {
    /// Makes each declared index the store does not have yet; one it has already is left as it is.
    /// - Throws: the store's error when an index conflicts with an existing one or a unique index meets
    ///   duplicate keys.
    func makeIndexes(_ declarations: [IndexDeclaration]) async throws {
        for index in declarations {
            _ = try await database(index.database).collection(index.collection).createIndex(
                index.keys, unique: index.unique, name: index.name)
        }
    }
}
