import BSON

/// Writing single documents with their index entries and change events, and reading candidates.
extension StoreCore {
    static let maximumDocumentBytes = 16 * 1024 * 1024

    static func idKey(_ document: BSONDocument) throws(StoreError) -> [UInt8] {
        guard let id = document["_id"] else { throw .badValue("document has no _id") }
        return try idKey(id)
    }

    static func idKey(_ id: BSON) throws(StoreError) -> [UInt8] {
        switch id {
        case .array: throw .location(53, "The '_id' value cannot be of type array")
        case .regex: throw .location(53, "The '_id' value cannot be of type regex")
        case .undefined: throw .location(53, "The '_id' value cannot be of type undefined")
        default: return try IndexKey.encode(id)
        }
    }

    /// Adds an ObjectId `_id` as the first field when there is none; moves an existing one first.
    static func withId(_ document: BSONDocument) -> BSONDocument {
        if document.keys.first == "_id" { return document }
        // Built anew at its final size: the caller still holds `document`, so changing a copy of it
        // in place would copy its fields first and then move them all to make room at the front.
        let existing = document.position(of: "_id")
        var result = BSONDocument()
        result.reserveCapacity(existing == nil ? document.count + 1 : document.count)
        result.append("_id", existing.map { document.values[$0] } ?? .objectId(ObjectId()))
        for position in document.indices where position != existing {
            result.append(document.keys[position], document.values[position])
        }
        return result
    }

    /// The document's bytes; one over the limit is refused with the server's error for an insert, or for the
    /// result of an update or replacement (`isUpdateResult`).
    static func encodeChecked(_ document: BSONDocument, isUpdateResult: Bool = false) throws(StoreError) -> [UInt8] {
        let bytes = try DocumentEncoding.encode(document)
        guard bytes.count <= maximumDocumentBytes else {
            if isUpdateResult { throw .resultTooLarge }
            throw .bsonObjectTooLarge(
                "object to insert too large. size in bytes: \(bytes.count), max size: \(maximumDocumentBytes)")
        }
        return bytes
    }

    func duplicateKeyError(_ state: CollectionState, index: String, key: String) -> StoreError {
        .duplicateKey("E11000 duplicate key error collection: \(state.namespace) index: \(index) dup key: \(key)")
    }

    /// Fails with E11000 when another document than the one stored under `ownKey` (if any) already
    /// holds one of `entries` in a unique index.
    private func checkUnique(
        _ state: CollectionState, _ entries: [(IndexDefinition, [IndexDefinition.Entry])], ownKey: [UInt8]
    ) throws(StoreError) {
        for (index, indexEntries) in entries where index.unique {
            for entry in indexEntries {
                guard let holder = try engine.firstIndexEntry(index: index.id, key: entry.key) else { continue }
                if try holder != engine.documentRow(collection: state.record.id, key: ownKey) {
                    throw duplicateKeyError(state, index: index.name, key: index.describe(entry))
                }
            }
        }
    }

    /// The row of a document this transaction has read.
    private func storedRow(_ state: CollectionState, key: [UInt8]) throws(StoreError) -> DocumentRow {
        guard let row = try engine.documentRow(collection: state.record.id, key: key) else {
            throw .location(17_004, "document vanished from \(state.namespace) while being written")
        }
        return row
    }

    private func indexEntries(_ state: CollectionState, _ document: BSONDocument) throws(StoreError)
        -> [(IndexDefinition, [IndexDefinition.Entry])]
    {
        var all: [(IndexDefinition, [IndexDefinition.Entry])] = []
        for index in state.indexes { all.append((index, try index.entries(for: document))) }
        return all
    }

    /// Inserts a document that already has its `_id`, with index entries and an `insert` event.
    func insertDocument(_ state: CollectionState, _ document: BSONDocument) throws(StoreError) {
        try insertDocument(state, try PreparedDocument(document, in: state.namespace))
    }

    /// Inserts an encoded document, with index entries and an `insert` event embedding the same bytes.
    /// Every check runs before the first write, so a failed insert leaves nothing behind.
    func insertDocument(_ state: CollectionState, _ prepared: PreparedDocument) throws(StoreError) {
        let (document, key) = (prepared.document, prepared.key)
        try access?.authorizeWrite(state.namespace, before: nil, after: document)
        let entries = try indexEntries(state, document)
        try checkUnique(state, entries, ownKey: key)
        guard let row = try engine.insertDocument(collection: state.record.id, key: key, body: prepared.body) else {
            throw duplicateKeyError(state, index: "_id_", key: BSON.document(["_id": prepared.id]).messageText)
        }
        wrote(state.namespace)
        for (index, indexEntries) in entries {
            for entry in indexEntries { try engine.insertIndexEntry(index: index.id, key: entry.key, row: row) }
        }
        if let event = prepared.event {
            try appendChange(
                encoded: event,
                insert: CommittedChange.Insert(namespace: state.namespace, id: prepared.id, document: document),
                namespace: state.namespace)
        }
    }

    /// Replaces `old` by `new` (same `_id`), keeping indexes current, and logs an `update` or `replace`.
    func replaceDocument(
        _ state: CollectionState, old: BSONDocument, new: BSONDocument, operationType: String
    ) throws(StoreError) {
        try access?.authorizeWrite(state.namespace, before: old, after: new)
        let key = try Self.idKey(old)
        let body = try Self.encodeChecked(new, isUpdateResult: true)
        let oldEntries = try indexEntries(state, old)
        let newEntries = try indexEntries(state, new)
        try checkUnique(state, newEntries, ownKey: key)
        let row = try storedRow(state, key: key)
        for ((index, before), (_, after)) in zip(oldEntries, newEntries) {
            let beforeKeys = Set(before.map(\.key))
            let afterKeys = Set(after.map(\.key))
            for stale in beforeKeys.subtracting(afterKeys) {
                try engine.deleteIndexEntry(index: index.id, key: stale, row: row)
            }
            for fresh in afterKeys.subtracting(beforeKeys) {
                try engine.insertIndexEntry(index: index.id, key: fresh, row: row)
            }
        }
        try engine.updateDocument(row: row, body: body)
        wrote(state.namespace)
        guard state.namespace.isChangeLogged else { return }  // as in `removeDocument`
        var event: BSONDocument = [
            "operationType": .string(operationType), "ns": namespaceDocument(state.namespace),
            "documentKey": ["_id": old["_id"]!],
        ]
        if operationType == "update" {
            event["updateDescription"] = .document(Self.render(UpdateDescription(from: old, to: new)))
            if state.recordsImages { event["postImage"] = .document(new) }
        } else {
            event["fullDocument"] = .document(new)
        }
        if state.recordsImages { event["preImage"] = .document(old) }
        try appendChange(event)
    }

    func removeDocument(_ state: CollectionState, _ document: BSONDocument) throws(StoreError) {
        try access?.authorizeWrite(state.namespace, before: document, after: nil)
        let row = try storedRow(state, key: try Self.idKey(document))
        for (index, entries) in try indexEntries(state, document) {
            for entry in entries { try engine.deleteIndexEntry(index: index.id, key: entry.key, row: row) }
        }
        try engine.deleteDocument(row: row)
        wrote(state.namespace)
        // Unlogged databases (`local`: logs pruned by the thousand) get no event: not even one to throw away.
        guard state.namespace.isChangeLogged else { return }
        var event: BSONDocument = [
            "operationType": "delete", "ns": namespaceDocument(state.namespace),
            "documentKey": ["_id": document["_id"]!],
        ]
        if state.recordsImages { event["preImage"] = .document(document) }
        try appendChange(event)
    }

    func namespaceDocument(_ namespace: Namespace) -> BSON { Self.namespaceDocument(namespace) }

    static func namespaceDocument(_ namespace: Namespace) -> BSON {
        ["db": .string(namespace.database), "coll": .string(namespace.collection)]
    }

    static func render(_ description: UpdateDescription) -> BSONDocument {
        [
            "updatedFields": .document(description.updatedFields),
            "removedFields": .array(description.removedFields.map { .string($0) }),
            "truncatedArrays": .array(
                description.truncatedArrays.map { ["field": .string($0.field), "newSize": .int32($0.newSize)] }),
        ]
    }
}

/// A document ready to insert into `namespace`, encoded with its `insert` event where it was built (on
/// the caller's thread for `insertOne`/`insertMany`), so the store's thread, which every write shares,
/// only stores the bytes.
struct PreparedDocument: Sendable {
    let document: BSONDocument
    let id: BSON
    let key: [UInt8]
    let body: [UInt8]
    /// The `insert` event, embedding `body`; nil for namespaces that are not change-logged, and for
    /// writes that are not (`changeLogged: false`, see `DocumentCollection.replaceContents`).
    let event: [UInt8]?

    /// `document` must have its `_id` (`StoreCore.withId`).
    init(_ document: BSONDocument, in namespace: Namespace, changeLogged: Bool = true) throws(StoreError) {
        guard let id = document["_id"] else { throw .badValue("document has no _id") }
        self.document = document
        self.id = id
        key = try StoreCore.idKey(id)
        body = try StoreCore.encodeChecked(document)
        guard namespace.isChangeLogged, changeLogged else {
            event = nil
            return
        }
        try Self.checkEmbeddable(document, encodedSize: body.count)
        event = try ChangeEventEncoding.encodeInsert(namespace: namespace, id: id, document: body)
    }

    /// The event holds the document one level deeper than it stands alone, so a document already at
    /// BSON's nesting limit cannot be logged: refused, as encoding the event with it inside would be.
    /// Every level costs at least 7 bytes (length, type, key terminator, end), so only large documents
    /// need the walk.
    private static func checkEmbeddable(_ document: BSONDocument, encodedSize: Int) throws(StoreError) {
        let limit = BSONDocument.maximumNestingDepth - 1
        guard encodedSize >= 5 + 7 * (limit - 1) else { return }
        var pending: [(values: [BSON], depth: Int)] = [(document.values, 1)]
        while let (values, depth) = pending.popLast() {
            for value in values {
                let children: [BSON]
                switch value {
                case .document(let nested): children = nested.values
                case .array(let nested): children = nested
                case .javascriptWithScope(let code): children = code.scope.values
                default: continue
                }
                guard depth < limit else {
                    throw .badValue(
                        "cannot store the document as BSON: its change event would nest deeper than "
                            + "\(BSONDocument.maximumNestingDepth) levels")
                }
                pending.append((children, depth + 1))
            }
        }
    }
}

/// A compiled filter ready to run (`QueryPlanCache.compile`); nil (the empty filter) matches everything.
struct DocumentMatcher {
    private let root: QueryMatcher?

    init(_ root: QueryMatcher?) {
        self.root = root
    }

    /// The match, nil for no match; throws what a `$expr` raises, failing the query as MongoDB does.
    func match(_ document: BSONDocument) throws(StoreError) -> QueryMatch? {
        guard let root else { return QueryMatch() }
        return try root.match(document)
    }
}
