import BSON
import Dispatch
import Synchronization

/// Replacing a collection's whole contents at once: what restoring saved data (`switchyard data import`)
/// needs, where the usual writes would be one commit per call and a change event per document.
extension DocumentCollection {
    /// Replaces the collection's documents and secondary indexes in one transaction: afterwards it holds
    /// exactly `documents` (in this order; each without an `_id` gets an ObjectId) and `indexes`
    /// (`{key, name?, unique?}`, as `listIndexes` shows them; `_id_` is implied and skipped). On any
    /// error nothing changes. The collection's options (pre- and post-images) are kept. Logged or not as
    /// `DocumentStore.replaceContents(_:changeLogged:)` says.
    ///
    /// - Returns: the number of documents stored.
    /// - Throws: `BulkWriteError` with the position of the first document that cannot be stored (an
    ///   `_id` that cannot be one, a duplicate `_id` or unique-index key, a document over 16 MiB), with
    ///   nothing written; a `StoreError` for an invalid name or index specification.
    @discardableResult
    package func replaceContents(_ documents: [BSONDocument], indexes: [BSONDocument], changeLogged: Bool)
        async throws -> Int
    {
        do {
            return try await database.store.replaceContents(
                [CollectionContents(namespace: namespace, documents: documents, indexes: indexes)],
                changeLogged: changeLogged)
        } catch {
            guard let position = error.document else { throw error.error }
            throw BulkWriteError(
                writeErrors: [WriteError(index: position, code: error.error.code, errmsg: error.error.message)],
                result: BulkWriteResult())
        }
    }
}

extension PreparedDocument {
    /// Encodes every document on every core (for large replacements, encoding is much of the work).
    /// - Throws: the error of the first document, by position, that cannot be stored (as of collection 0).
    static func prepareAll(_ documents: [BSONDocument], in namespace: Namespace, changeLogged: Bool)
        throws(ContentsReplacementError) -> [PreparedDocument]
    {
        let chunkSize = 4_096
        let chunks = (documents.count + chunkSize - 1) / chunkSize
        let results = Mutex<[Int: Result<[PreparedDocument], ContentsReplacementError>]>([:])
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let range = (chunk * chunkSize)..<min(documents.count, (chunk + 1) * chunkSize)
            var prepared: [PreparedDocument] = []
            prepared.reserveCapacity(range.count)
            var failure: ContentsReplacementError?
            for position in range {
                do throws(StoreError) {
                    prepared.append(
                        try PreparedDocument(
                            StoreCore.withId(documents[position]), in: namespace, changeLogged: changeLogged))
                } catch {
                    failure = ContentsReplacementError(collection: 0, document: position, error: error)
                    break
                }
            }
            let result: Result<[PreparedDocument], ContentsReplacementError> =
                failure.map { .failure($0) } ?? .success(prepared)
            results.withLock { $0[chunk] = result }
        }
        let collected = results.withLock { $0 }
        var all: [PreparedDocument] = []
        all.reserveCapacity(documents.count)
        for chunk in 0..<chunks {
            guard let result = collected[chunk] else { continue }
            all += try result.get()
        }
        return all
    }
}

/// A secondary index to create, read from a `listIndexes`-shaped specification.
struct IndexRequest: Sendable {
    var keys: BSONDocument
    var name: String?
    var unique: Bool

    /// Nil for the `_id` index, which every collection has.
    init?(_ spec: BSONDocument) throws(StoreError) {
        guard let keys = spec["key"]?.documentValue else {
            throw .failedToParse("index specification \(BSON.document(spec).messageText) has no 'key' document")
        }
        if let name = spec["name"], name.stringValue == nil {
            throw .typeMismatch("index name must be a string, got \(name.messageText)")
        }
        if let unique = spec["unique"], unique.boolValue == nil {
            throw .typeMismatch("index option 'unique' must be a boolean, got \(unique.messageText)")
        }
        if keys == ["_id": 1] || spec["name"]?.stringValue == "_id_" { return nil }
        self.keys = keys
        name = spec["name"]?.stringValue
        unique = spec["unique"]?.boolValue ?? false
    }
}

/// Which document of which collection of a replacement failed inside the transaction, for the error the
/// caller throws.
final class FailedPosition: Sendable {
    private let stored = Mutex<(collection: Int, document: Int?)?>(nil)

    var position: (collection: Int, document: Int?)? { stored.withLock { $0 } }

    /// Records that collection `collection` is being replaced (so an error from here on is about it).
    func begin(collection: Int) { stored.withLock { $0 = (collection, nil) } }

    func record(_ document: Int) { stored.withLock { $0?.document = document } }
}

extension StoreCore {
    /// Empties the collection (logging a `delete` per document when `changeLogged`), recreates it with
    /// its options and no secondary index, creates `indexes`, then inserts `documents`.
    func replaceContents(
        _ namespace: Namespace, _ documents: [PreparedDocument], indexes: [IndexRequest], changeLogged: Bool,
        failure: FailedPosition
    ) throws(StoreError) {
        var options: BSONDocument = [:]
        let existed = collection(namespace) != nil
        if let existing = collection(namespace) {
            options = existing.record.options
            if changeLogged && namespace.isChangeLogged {
                var statistics = StoreView.ScanStatistics()
                let present = try view.matchingDocuments(existing, filter: [:], limit: nil, statistics: &statistics)
                for (document, _) in present { try removeDocument(existing, document) }
            }
            try engine.deleteCollection(id: existing.record.id)
            wrote(namespace)
            catalog[namespace] = nil
        }
        // A collection that was there already is recreated unseen: the log never saw it dropped.
        let logsCreation = changeLogged && !existed
        var state = try collectionCreatingIfNeeded(namespace, options: options, logged: logsCreation)
        for index in indexes {
            _ = try createIndex(
                namespace, keys: index.keys, unique: index.unique, name: index.name, logged: logsCreation)
        }
        state = catalog[namespace] ?? state
        for (position, document) in documents.enumerated() {
            do {
                try insertDocument(state, document)
            } catch {
                failure.record(position)
                throw error
            }
        }
    }
}

extension Namespace {
    /// Fails for names the store refuses (empty, `$`, NUL; for databases also `/\. "*<>:|?`; collections
    /// starting with `system.`), so a caller can check every name before it writes anything.
    package func validate() throws(StoreError) {
        try Self.validate(database: database)
        try Self.validate(collection: collection, in: database)
    }
}

extension DocumentCollection {
    /// Fails for an index specification `replaceContents` would refuse (no `key`, an invalid key pattern or
    /// option), so a caller can check them all before it writes anything.
    package static func validateIndexSpecification(_ spec: BSONDocument) throws(StoreError) {
        guard let request = try IndexRequest(spec) else { return }
        _ = try IndexDefinition(
            id: 0, name: request.name ?? IndexDefinition.defaultName(for: request.keys), keyPattern: request.keys,
            unique: request.unique)
    }
}
