import BSON

/// A collection in the catalog. Renaming changes only `database`/`name`; documents and index entries
/// are stored under the stable `id`.
struct CollectionRecord: Sendable, Equatable {
    var id: Int64
    var database: String
    var name: String
    var options: BSONDocument
}

/// A secondary index in the catalog; `specification` is `{key, name, unique}` as `listIndexes` shows it.
struct IndexRecord: Sendable, Equatable {
    var id: Int64
    var collection: Int64
    var specification: BSONDocument
}

/// One row of the change log: the sequence number behind resume tokens and the stored event.
struct ChangeRecord: Sendable, Equatable {
    var sequence: Int64
    var wallTime: Int64
    var event: [UInt8]
}

/// Byte-level storage: documents keyed by (collection id, `_id` index key), index entries, the change
/// log and the catalog, with transactions and nested savepoints. Everything above (BSON, index keys,
/// events) is the store's business, written once for every engine.
///
/// An engine is used from the store's own thread only, one call at a time. Every mutation happens
/// between `beginTransaction` and `commitTransaction`/`rollbackTransaction`.
protocol StorageEngine: AnyObject {
    func beginTransaction() throws(StoreError)
    /// Makes the transaction durable as configured; on failure the transaction is rolled back.
    func commitTransaction() throws(StoreError)
    func rollbackTransaction()
    /// True when the write-ahead log has grown enough to be copied into the database (`checkpoint`),
    /// which commits never do themselves: it writes and fsyncs the database file, and a commit may run
    /// on a writer's own thread (`StoreWorker`). Only the store's thread checkpoints.
    var needsCheckpoint: Bool { get }
    func checkpoint()
    func createSavepoint() throws(StoreError)
    func releaseSavepoint() throws(StoreError)
    /// Undoes everything since the innermost savepoint and removes it.
    func rollbackToSavepoint()

    func collections() throws(StoreError) -> [CollectionRecord]
    func indexes() throws(StoreError) -> [IndexRecord]
    func insertCollection(database: String, name: String, options: BSONDocument) throws(StoreError) -> Int64
    func updateCollection(_ record: CollectionRecord) throws(StoreError)
    /// Removes the collection with its documents, indexes and index entries.
    func deleteCollection(id: Int64) throws(StoreError)
    func insertIndex(collection: Int64, specification: BSONDocument) throws(StoreError) -> Int64
    /// Removes the index with its entries.
    func deleteIndex(id: Int64) throws(StoreError)

    func document(collection: Int64, key: [UInt8]) throws(StoreError) -> [UInt8]?
    /// Inserts a new document; false (and nothing written) when the key exists.
    func insertDocument(collection: Int64, key: [UInt8], body: [UInt8]) throws(StoreError) -> Bool
    /// Inserts or overwrites.
    func putDocument(collection: Int64, key: [UInt8], body: [UInt8]) throws(StoreError)
    func deleteDocument(collection: Int64, key: [UInt8]) throws(StoreError)
    /// Visits documents in key order until `visit` returns false.
    func scanDocuments(collection: Int64, _ visit: (_ key: [UInt8], _ body: [UInt8]) throws(StoreError) -> Bool)
        throws(StoreError)
    func documentCount(collection: Int64) throws(StoreError) -> Int

    func insertIndexEntry(index: Int64, key: [UInt8], document: [UInt8]) throws(StoreError)
    func deleteIndexEntry(index: Int64, key: [UInt8], document: [UInt8]) throws(StoreError)
    /// The document key of some entry with exactly this index key, if any (unique checks).
    func firstIndexEntry(index: Int64, key: [UInt8]) throws(StoreError) -> [UInt8]?
    /// Visits entries with `lower <= key < upper` (nil upper: no bound) in order until `visit` returns false.
    func scanIndex(
        index: Int64, from lower: [UInt8], to upper: [UInt8]?,
        _ visit: (_ key: [UInt8], _ document: [UInt8]) throws(StoreError) -> Bool
    ) throws(StoreError)

    /// Visits the documents of the entries with `lower <= key < upper` (nil upper: no bound), in entry
    /// order, as (document key, body), until `visit` returns false: one statement where SQLite would
    /// otherwise need one for the entries and one per document. `visit` must not use the engine.
    func scanIndexedDocuments(
        index: Int64, collection: Int64, from lower: [UInt8], to upper: [UInt8]?,
        _ visit: (_ key: [UInt8], _ body: [UInt8]) throws(StoreError) -> Bool
    ) throws(StoreError)

    func appendChange(_ change: ChangeRecord) throws(StoreError)
    func changes(after sequence: Int64, limit: Int) throws(StoreError) -> [ChangeRecord]
    /// Sequence, wall time and size of the oldest retained changes, oldest first.
    func oldestChanges(limit: Int) throws(StoreError) -> [(sequence: Int64, wallTime: Int64, bytes: Int)]
    func changeLogSummary() throws(StoreError) -> (count: Int, bytes: Int, lastSequence: Int64?)
    func deleteChanges(through sequence: Int64) throws(StoreError)

    func metadata(_ name: String) throws(StoreError) -> Int64?
    func setMetadata(_ name: String, _ value: Int64) throws(StoreError)

    func close()
}
