import BSON

/// An in-memory engine for tests and ephemeral apps. Transactions and savepoints work through an undo
/// log: each mutation records its inverse, and rolling back replays inverses to the savepoint's mark.
final class MemoryEngine: StorageEngine {
    private var collectionRecords: [Int64: CollectionRecord] = [:]
    private var indexRecords: [Int64: IndexRecord] = [:]
    /// Per collection, documents sorted by key.
    private var documents: [Int64: SortedByteMap<StoredDocument>] = [:]
    /// Where each document row is: its collection and key.
    private var rows: [DocumentRow: (collection: Int64, key: [UInt8])] = [:]
    private var nextRow: DocumentRow = 1
    /// Per index, entries sorted by (key, document row).
    private var entries: [Int64: SortedByteMap<Void>] = [:]
    private var changeLog: [ChangeRecord] = []
    /// The sequences of the tagged entries, by tag, in log order: a run's writes are found without a scan of the log.
    private var originSequences: [String: [Int64]] = [:]
    /// The tagged entries in log order, so that pruning drops their sequences from `originSequences` in its own time.
    private var taggedEntries: [(sequence: Int64, origin: String)] = []
    private var metadataValues: [String: Int64] = [:]
    private var nextId: Int64 = 1

    private struct StoredDocument {
        var row: DocumentRow
        var body: [UInt8]
    }

    private var undoLog: [() -> Void] = []
    private var savepoints: [Int] = []
    private var inTransaction = false

    init() {}

    private func recordUndo(_ undo: @escaping () -> Void) {
        if inTransaction { undoLog.append(undo) }
    }

    func beginTransaction() throws(StoreError) {
        guard !inTransaction else { throw .location(17_001, "transaction already open") }
        inTransaction = true
    }

    func commitTransaction() throws(StoreError) {
        undoLog.removeAll(keepingCapacity: true)
        savepoints.removeAll()
        inTransaction = false
    }

    func rollbackTransaction() {
        undo(to: 0)
        savepoints.removeAll()
        inTransaction = false
    }

    /// Nothing to copy: the data is only in memory.
    var checkpointNeed: CheckpointNeed { .none }

    func checkpoint() {}

    func makeCheckpointer() throws(StoreError) -> Checkpointer? { nil }

    func createSavepoint() throws(StoreError) { savepoints.append(undoLog.count) }

    func releaseSavepoint() throws(StoreError) { _ = savepoints.popLast() }

    func rollbackToSavepoint() {
        guard let mark = savepoints.popLast() else { return }
        undo(to: mark)
    }

    private func undo(to mark: Int) {
        while undoLog.count > mark { undoLog.removeLast()() }
    }

    func collections() throws(StoreError) -> [CollectionRecord] {
        collectionRecords.values.sorted { $0.id < $1.id }
    }

    func indexes() throws(StoreError) -> [IndexRecord] {
        indexRecords.values.sorted { $0.id < $1.id }
    }

    func insertCollection(database: String, name: String, options: BSONDocument) throws(StoreError) -> Int64 {
        let id = nextId
        nextId += 1
        collectionRecords[id] = CollectionRecord(id: id, database: database, name: name, options: options)
        documents[id] = SortedByteMap()
        recordUndo { [unowned self] in
            collectionRecords[id] = nil
            documents[id] = nil
        }
        return id
    }

    func updateCollection(_ record: CollectionRecord) throws(StoreError) {
        let old = collectionRecords[record.id]
        collectionRecords[record.id] = record
        recordUndo { [unowned self] in collectionRecords[record.id] = old }
    }

    func deleteCollection(id: Int64) throws(StoreError) {
        for index in indexRecords.values where index.collection == id { try deleteIndex(id: index.id) }
        let record = collectionRecords.removeValue(forKey: id)
        let docs = documents.removeValue(forKey: id)
        var removedRows: [(DocumentRow, [UInt8])] = []
        docs?.forEach(from: []) { key, stored in
            removedRows.append((stored.row, key))
            return true
        }
        for (row, _) in removedRows { rows[row] = nil }
        recordUndo { [unowned self] in
            collectionRecords[id] = record
            documents[id] = docs
            for (row, key) in removedRows { rows[row] = (id, key) }
        }
    }

    func insertIndex(collection: Int64, specification: BSONDocument) throws(StoreError) -> Int64 {
        let id = nextId
        nextId += 1
        indexRecords[id] = IndexRecord(id: id, collection: collection, specification: specification)
        entries[id] = SortedByteMap()
        recordUndo { [unowned self] in
            indexRecords[id] = nil
            entries[id] = nil
        }
        return id
    }

    func deleteIndex(id: Int64) throws(StoreError) {
        let record = indexRecords.removeValue(forKey: id)
        let old = entries.removeValue(forKey: id)
        recordUndo { [unowned self] in
            indexRecords[id] = record
            entries[id] = old
        }
    }

    func document(collection: Int64, key: [UInt8]) throws(StoreError) -> [UInt8]? {
        documents[collection]?.value(for: key)?.body
    }

    func documentRow(collection: Int64, key: [UInt8]) throws(StoreError) -> DocumentRow? {
        documents[collection]?.value(for: key)?.row
    }

    func insertDocument(collection: Int64, key: [UInt8], body: [UInt8]) throws(StoreError) -> DocumentRow? {
        guard documents[collection]?.value(for: key) == nil else { return nil }
        let row = nextRow
        nextRow += 1
        documents[collection, default: SortedByteMap()].set(StoredDocument(row: row, body: body), for: key)
        rows[row] = (collection, key)
        recordUndo { [unowned self] in
            documents[collection]?.remove(key)
            rows[row] = nil
        }
        return row
    }

    func updateDocument(row: DocumentRow, body: [UInt8]) throws(StoreError) {
        guard let (collection, key) = rows[row],
            let old = documents[collection]?.set(StoredDocument(row: row, body: body), for: key)
        else { return }
        recordUndo { [unowned self] in documents[collection]?.set(old, for: key) }
    }

    func deleteDocument(row: DocumentRow) throws(StoreError) {
        guard let (collection, key) = rows.removeValue(forKey: row), let old = documents[collection]?.remove(key)
        else { return }
        recordUndo { [unowned self] in
            documents[collection]?.set(old, for: key)
            rows[row] = (collection, key)
        }
    }

    func deleteDocument(collection: Int64, key: [UInt8]) throws(StoreError) -> Bool {
        guard let row = documents[collection]?.value(for: key)?.row else { return false }
        try deleteDocument(row: row)
        return true
    }

    func scanDocuments(collection: Int64, _ visit: (DocumentRow, [UInt8]) throws(StoreError) -> Bool)
        throws(StoreError)
    {
        try documents[collection]?.forEach(from: []) { _, stored throws(StoreError) in
            try visit(stored.row, stored.body)
        }
    }

    func documentCount(collection: Int64) throws(StoreError) -> Int { documents[collection]?.count ?? 0 }

    /// Index entries are keyed by the index key followed by the row (8 bytes, big-endian), so entries
    /// sort by key, then row, and the row is the last 8 bytes.
    private static func entryKey(_ key: [UInt8], _ row: DocumentRow) -> [UInt8] {
        var bytes = key
        withUnsafeBytes(of: UInt64(bitPattern: row).bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    private static func splitEntry(_ bytes: [UInt8]) -> (key: [UInt8], row: DocumentRow) {
        let row = bytes.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return (Array(bytes.dropLast(8)), DocumentRow(bitPattern: row))
    }

    func insertIndexEntry(index: Int64, key: [UInt8], row: DocumentRow) throws(StoreError) {
        let entry = Self.entryKey(key, row)
        guard entries[index, default: SortedByteMap()].set((), for: entry) == nil else { return }
        recordUndo { [unowned self] in entries[index]?.remove(entry) }
    }

    func deleteIndexEntry(index: Int64, key: [UInt8], row: DocumentRow) throws(StoreError) {
        let entry = Self.entryKey(key, row)
        guard entries[index]?.remove(entry) != nil else { return }
        recordUndo { [unowned self] in entries[index]?.set((), for: entry) }
    }

    func firstIndexEntry(index: Int64, key: [UInt8]) throws(StoreError) -> DocumentRow? {
        var found: DocumentRow?
        entries[index]?.forEach(from: key) { entry, _ in
            let split = Self.splitEntry(entry)
            if split.key == key { found = split.row }
            return false
        }
        return found
    }

    func scanIndexedDocuments(
        index: Int64, from lower: [UInt8], to upper: [UInt8]?,
        _ visit: (DocumentRow, UnsafeRawBufferPointer) throws(StoreError) -> Bool
    ) throws(StoreError) {
        try entries[index]?.forEach(from: lower) { entry, _ throws(StoreError) in
            let split = Self.splitEntry(entry)
            if let upper, !split.key.lexicographicallyPrecedes(upper) { return false }
            guard let (collection, key) = rows[split.row], let stored = documents[collection]?.value(for: key) else {
                return true
            }
            return try stored.body.withUnsafeBytes { body in
                Result { () throws(StoreError) in try visit(split.row, body) }
            }.get()
        }
    }

    func appendChange(_ change: ChangeRecord) throws(StoreError) -> (sequence: Int64, catalogVersion: Int64?) {
        changeLog.append(change)
        recordUndo { [unowned self] in changeLog.removeLast() }
        if let origin = change.origin {
            originSequences[origin, default: []].append(change.sequence)
            taggedEntries.append((change.sequence, origin))
            recordUndo { [unowned self] in
                taggedEntries.removeLast()
                originSequences[origin]?.removeLast()
                if originSequences[origin]?.isEmpty == true { originSequences[origin] = nil }
            }
        }
        return (change.sequence, nil)
    }

    func changes(origin: String) throws(StoreError) -> [ChangeRecord] {
        (originSequences[origin] ?? []).compactMap { sequence in
            let index = changeLog.partitioningIndex { $0.sequence >= sequence }
            guard index < changeLog.count, changeLog[index].sequence == sequence else { return nil }
            var record = changeLog[index]
            record.origin = nil
            return record
        }
    }

    func originsTaggedAfter() throws(StoreError) -> Int64 { 0 }

    func changes(after sequence: Int64, limit: Int) throws(StoreError) -> [ChangeRecord] {
        let start = changeLog.partitioningIndex { $0.sequence > sequence }
        return Array(changeLog[start..<min(changeLog.count, start + limit)])
    }

    func oldestChanges(limit: Int) throws(StoreError) -> [(sequence: Int64, wallTime: Int64, bytes: Int)] {
        changeLog.prefix(limit).map { ($0.sequence, $0.wallTime, $0.event.count) }
    }

    func changeLogSummary() throws(StoreError) -> (count: Int, bytes: Int, lastSequence: Int64?) {
        (changeLog.count, changeLog.reduce(0) { $0 + $1.event.count }, changeLog.last?.sequence)
    }

    func deleteChanges(through sequence: Int64) throws(StoreError) {
        let end = changeLog.partitioningIndex { $0.sequence > sequence }
        let removed = Array(changeLog[..<end])
        changeLog.removeFirst(end)
        recordUndo { [unowned self] in changeLog.insert(contentsOf: removed, at: 0) }
        let untagged = taggedEntries.partitioningIndex { $0.sequence > sequence }
        guard untagged > 0 else { return }
        let (origins, tagged) = (originSequences, taggedEntries)
        for entry in taggedEntries[..<untagged] {
            originSequences[entry.origin]?.removeFirst()
            if originSequences[entry.origin]?.isEmpty == true { originSequences[entry.origin] = nil }
        }
        taggedEntries.removeFirst(untagged)
        recordUndo { [unowned self] in (originSequences, taggedEntries) = (origins, tagged) }
    }

    func metadata(_ name: String) throws(StoreError) -> Int64? { metadataValues[name] }

    func setMetadata(_ name: String, _ value: Int64) throws(StoreError) {
        let old = metadataValues.updateValue(value, forKey: name)
        recordUndo { [unowned self] in metadataValues[name] = old }
    }

    func close() {}
}

/// A map from byte strings to values kept in byte order, for ordered scans.
struct SortedByteMap<Value> {
    private var keys: [[UInt8]] = []
    private var values: [Value] = []

    var count: Int { keys.count }

    private func position(of key: [UInt8]) -> Int {
        keys.partitioningIndex { !$0.lexicographicallyPrecedes(key) }
    }

    func value(for key: [UInt8]) -> Value? {
        let i = position(of: key)
        return i < keys.count && keys[i] == key ? values[i] : nil
    }

    /// Sets the value, returning the one it replaced.
    @discardableResult
    mutating func set(_ value: Value, for key: [UInt8]) -> Value? {
        let i = position(of: key)
        if i < keys.count && keys[i] == key {
            let old = values[i]
            values[i] = value
            return old
        }
        keys.insert(key, at: i)
        values.insert(value, at: i)
        return nil
    }

    @discardableResult
    mutating func remove(_ key: [UInt8]) -> Value? {
        let i = position(of: key)
        guard i < keys.count && keys[i] == key else { return nil }
        keys.remove(at: i)
        return values.remove(at: i)
    }

    /// Visits entries with `key >= lower` in order until `visit` returns false.
    func forEach<E: Error>(from lower: [UInt8], _ visit: ([UInt8], Value) throws(E) -> Bool) throws(E) {
        var i = position(of: lower)
        while i < keys.count {
            guard try visit(keys[i], values[i]) else { return }
            i += 1
        }
    }
}

extension Collection {
    /// The first index whose element satisfies `predicate`, for a predicate false then true along the
    /// collection (binary search).
    func partitioningIndex(where predicate: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var length = count
        while length > 0 {
            let half = length / 2
            let middle = index(low, offsetBy: half)
            if try predicate(self[middle]) {
                length = half
            } else {
                low = index(after: middle)
                length -= half + 1
            }
        }
        return low
    }
}
