import BSON

/// Replacing several collections' whole contents at once: what restoring saved data (`switchyard data import`)
/// needs, so that an import either lands whole or not at all.
extension DocumentStore {
    /// Replaces each collection's documents and secondary indexes, all in one transaction: afterwards each
    /// holds exactly what `collections` gives it, or, on any error, nothing changed anywhere. Collections not
    /// listed are left alone; each one's options (pre- and post-images) are kept.
    ///
    /// With `changeLogged` the replacement is logged like ordinary writes: a `delete` event for every document
    /// there was, an `insert` event for every new one, all committed together, so change streams and triggers
    /// see every one of them or none. Without it nothing is logged: change streams never see the replacement
    /// (no `drop`, no invalidation), as if the data had always been there — a restore, not a change.
    ///
    /// - Returns: the number of documents stored.
    /// - Throws: `ContentsReplacementError` naming the collection (and document) the store refused.
    @discardableResult
    package func replaceContents(_ collections: [CollectionContents], changeLogged: Bool)
        async throws(ContentsReplacementError) -> Int
    {
        var replacements: [ContentsReplacement] = []
        for (position, contents) in collections.enumerated() {
            let namespace = contents.namespace
            do throws(StoreError) {
                try namespace.validate()
                var indexes: [IndexRequest] = []
                for spec in contents.indexes {
                    if let index = try IndexRequest(spec) { indexes.append(index) }
                }
                replacements.append(ContentsReplacement(namespace: namespace, documents: [], indexes: indexes))
            } catch {
                throw ContentsReplacementError(collection: position, document: nil, error: error)
            }
            do {
                replacements[position].documents = try PreparedDocument.prepareAll(
                    contents.documents, in: namespace, changeLogged: changeLogged)
            } catch {
                throw ContentsReplacementError(collection: position, document: error.document, error: error.error)
            }
        }
        let failure = FailedPosition()
        defer { for contents in collections { writeVersions.advance(contents.namespace) } }
        do {
            try await worker.write { [replacements] core throws(StoreError) in
                for (position, replacement) in replacements.enumerated() {
                    failure.begin(collection: position)
                    try core.replaceContents(
                        replacement.namespace, replacement.documents, indexes: replacement.indexes,
                        changeLogged: changeLogged, failure: failure)
                }
            }
        } catch {
            let position = failure.position
            throw ContentsReplacementError(
                collection: position?.collection ?? 0, document: position?.document, error: error)
        }
        return replacements.reduce(0) { $0 + $1.documents.count }
    }
}

/// One collection's contents checked and encoded, ready for the transaction.
struct ContentsReplacement: Sendable {
    var namespace: Namespace
    var documents: [PreparedDocument]
    var indexes: [IndexRequest]
}
