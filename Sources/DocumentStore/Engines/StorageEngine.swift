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

/// One row of the change log: the sequence number behind resume tokens and the stored event, with the tag of the
/// writes that appended it (`StoreWriteOrigin`), which only `changes(origin:)` reads back. `namespace`, the
/// collection the event is about (nil for a database's), is not stored: a shared engine names it in the notice of
/// the append's commit (`SharedStorageEngine`).
struct ChangeRecord: Sendable, Equatable {
    var sequence: Int64
    var wallTime: Int64
    var event: [UInt8]
    var origin: String? = nil
    var namespace: Namespace? = nil
}

/// An engine's handle for a stored document, stable while the document exists (SQLite: its rowid).
/// Index entries point at it, so an index lookup reaches the document without a second key lookup.
typealias DocumentRow = Int64

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
    /// How much the write-ahead log wants copying into the database, which commits never do
    /// themselves: a checkpoint writes and fsyncs the database file, and a commit may run on a writer's
    /// own thread (`StoreWorker`). Only the store's thread checkpoints.
    var checkpointNeed: CheckpointNeed { get }
    /// A checkpoint with the core held: no write overlaps it, so it copies the whole log, and the next
    /// commit starts the log over.
    func checkpoint()
    /// What checkpoints while writers go on (`CheckpointNeed.besideWriters`), if the engine has one.
    func makeCheckpointer() throws(StoreError) -> Checkpointer?
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
    func documentRow(collection: Int64, key: [UInt8]) throws(StoreError) -> DocumentRow?
    /// Inserts a new document and returns its row; nil (and nothing written) when the key exists.
    func insertDocument(collection: Int64, key: [UInt8], body: [UInt8]) throws(StoreError) -> DocumentRow?
    /// Overwrites a stored document's body; the row stays the same.
    func updateDocument(row: DocumentRow, body: [UInt8]) throws(StoreError)
    func deleteDocument(row: DocumentRow) throws(StoreError)
    /// Deletes the document stored under `key`, without reading it first; false when there is none.
    func deleteDocument(collection: Int64, key: [UInt8]) throws(StoreError) -> Bool
    /// Visits documents in key order until `visit` returns false.
    func scanDocuments(collection: Int64, _ visit: (_ row: DocumentRow, _ body: [UInt8]) throws(StoreError) -> Bool)
        throws(StoreError)
    func documentCount(collection: Int64) throws(StoreError) -> Int

    func insertIndexEntry(index: Int64, key: [UInt8], row: DocumentRow) throws(StoreError)
    func deleteIndexEntry(index: Int64, key: [UInt8], row: DocumentRow) throws(StoreError)
    /// The document row of some entry with exactly this index key, if any (unique checks).
    func firstIndexEntry(index: Int64, key: [UInt8]) throws(StoreError) -> DocumentRow?

    /// Visits the documents of the entries with `lower <= key < upper` (nil upper: no bound), in entry
    /// order (key, then row), as (row, body), until `visit` returns false: one statement where SQLite
    /// would otherwise need one for the entries and one per document. `visit` must not use the engine,
    /// and `body` is valid only during its call (SQLite: the row's own memory, decoded without a copy).
    func scanIndexedDocuments(
        index: Int64, from lower: [UInt8], to upper: [UInt8]?,
        _ visit: (_ row: DocumentRow, _ body: UnsafeRawBufferPointer) throws(StoreError) -> Bool
    ) throws(StoreError)

    /// Appends `change` to the log. An engine several instances share (`SharedStorageEngine`) numbers it itself
    /// and returns the sequence it took with the catalog's version as of the append; the others keep the store's
    /// sequence and return no version.
    func appendChange(_ change: ChangeRecord) throws(StoreError) -> (sequence: Int64, catalogVersion: Int64?)
    func changes(after sequence: Int64, limit: Int) throws(StoreError) -> [ChangeRecord]
    /// The retained entries appended by writes tagged `origin`, in log order (their `origin` left out).
    func changes(origin: String) throws(StoreError) -> [ChangeRecord]
    /// The sequence after which every entry carries its writes' tag: entries up to it were appended before the
    /// log kept tags (a store migrated from a layout without them); 0 when all were.
    func originsTaggedAfter() throws(StoreError) -> Int64
    /// Sequence, wall time and size of the oldest retained changes, oldest first.
    func oldestChanges(limit: Int) throws(StoreError) -> [(sequence: Int64, wallTime: Int64, bytes: Int)]
    func changeLogSummary() throws(StoreError) -> (count: Int, bytes: Int, lastSequence: Int64?)
    func deleteChanges(through sequence: Int64) throws(StoreError)

    func metadata(_ name: String) throws(StoreError) -> Int64?
    func setMetadata(_ name: String, _ value: Int64) throws(StoreError)

    func close()
}

/// How much a write-ahead log wants a checkpoint.
enum CheckpointNeed: Sendable, Equatable {
    case none
    /// Grown past the usual size: copy what can be copied while writers go on (`Checkpointer`).
    case besideWriters
    /// Grown so far that writers wait for a checkpoint no write overlaps: only after one does the log
    /// start over instead of growing.
    case blockingWriters
}

/// Checkpoints on a connection of its own, beside the writers' commits, when the store's thread asks.
protocol Checkpointer: AnyObject {
    func checkpoint()
    func close()
}
