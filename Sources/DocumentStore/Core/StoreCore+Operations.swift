import BSON

/// Writes, each run on the store's thread inside the group-commit transaction.
extension StoreCore {
    // MARK: Writes

    /// `documents` have their `_id`s; each is prepared, or holds why it cannot be stored.
    func insert(
        _ namespace: Namespace, _ documents: [(document: BSONDocument, prepared: Result<PreparedDocument, StoreError>)],
        ordered: Bool
    ) throws(StoreError) -> (result: InsertManyResult, errors: [WriteError]) {
        guard !documents.isEmpty else {
            throw .location(16, "Invalid BatchSize: insertMany needs at least one document")
        }
        let state = try collectionCreatingIfNeeded(namespace)
        var inserted: [Int: BSON] = [:]
        var errors: [WriteError] = []
        // Without index entries or an event, inserting a document is one statement, which writes it whole or not
        // at all: nothing to undo, so no savepoint around it (two statements more per document otherwise).
        let singleStatement = state.indexes.isEmpty && !namespace.isChangeLogged
        for (position, (document, prepared)) in documents.enumerated() {
            do {
                if singleStatement {
                    try insertDocument(state, try prepared.get())
                } else {
                    try withSavepoint { () throws(StoreError) in try insertDocument(state, try prepared.get()) }
                }
                inserted[position] = document["_id"]
            } catch {
                errors.append(WriteError(index: position, code: error.code, errmsg: error.message))
                if ordered { break }
            }
        }
        return (InsertManyResult(insertedIds: inserted), errors)
    }

    /// Inserts encoded documents, unordered: the failures, by position; the other documents are inserted.
    func insert(_ namespace: Namespace, encoded documents: [EncodedDocument]) throws(StoreError) -> [WriteError] {
        let state = try collectionCreatingIfNeeded(namespace)
        // Without index entries or an event to derive, the bytes are all there is to store: one statement each.
        let direct = state.indexes.isEmpty && !namespace.isChangeLogged && access == nil
        var errors: [WriteError] = []
        for (position, document) in documents.enumerated() {
            do {
                if direct {
                    try insertEncoded(state, document)
                } else {
                    let decoded = try DocumentEncoding.decode(document.bytes)
                    try withSavepoint { () throws(StoreError) in
                        try insertDocument(state, try PreparedDocument(decoded, in: namespace))
                    }
                }
            } catch {
                errors.append(WriteError(index: position, code: error.code, errmsg: error.message))
            }
        }
        return errors
    }

    private func insertEncoded(_ state: CollectionState, _ document: EncodedDocument) throws(StoreError) {
        guard document.bytes.count <= Self.maximumDocumentBytes else {
            throw .bsonObjectTooLarge(
                "object to insert too large. size in bytes: \(document.bytes.count), max size: \(Self.maximumDocumentBytes)"
            )
        }
        let key = try Self.idKey(.objectId(document.id))
        guard try engine.insertDocument(collection: state.record.id, key: key, body: document.bytes) != nil else {
            throw duplicateKeyError(
                state, index: "_id_", key: BSON.document(["_id": .objectId(document.id)]).messageText)
        }
        wrote(state.namespace)
    }

    /// `updateOne`/`updateMany`/`replaceOne`. A multi-document update is atomic: if any document fails
    /// (a unique index, an invalid operator for one document), none is changed.
    func update(
        _ namespace: Namespace, filter: BSONDocument, update: BSONDocument, multi: Bool, upsert: Bool,
        arrayFilters: [BSONDocument], replacement: Bool
    ) throws(StoreError) -> UpdateResult {
        let specification = try Self.compile(update, arrayFilters: arrayFilters, replacement: replacement)
        var statistics = StoreView.ScanStatistics()
        let matches =
            try collection(namespace).map { state throws(StoreError) in
                try view.matchingDocuments(state, filter: filter, limit: multi ? nil : 1, statistics: &statistics)
            } ?? []
        guard !matches.isEmpty else {
            guard upsert else { return UpdateResult(matchedCount: 0, modifiedCount: 0, upsertedId: nil) }
            let document = try upsertDocument(namespace, filter: filter, specification: specification, update: update)
            return UpdateResult(matchedCount: 0, modifiedCount: 0, upsertedId: document["_id"])
        }
        let state = collection(namespace)!
        var modified = 0
        for (document, match) in matches {
            if try apply(specification, state, to: document, match: match) != nil { modified += 1 }
        }
        return UpdateResult(matchedCount: matches.count, modifiedCount: modified, upsertedId: nil)
    }

    static func compile(_ update: BSONDocument, arrayFilters: [BSONDocument], replacement: Bool) throws(StoreError)
        -> UpdateSpecification
    {
        if replacement, let key = update.keys.first(where: { $0.hasPrefix("$") }) {
            throw .failedToParse("the replacement document must not contain update operators (found '\(key)')")
        }
        if !replacement, update.isEmpty || !update.keys.allSatisfy({ $0.hasPrefix("$") }) {
            throw .failedToParse("update document requires atomic operators (use replaceOne to replace a document)")
        }
        return try UpdateSpecification(update, arrayFilters: arrayFilters)
    }

    /// Applies an update to one stored document; returns the new document, or nil when nothing changed.
    func apply(
        _ specification: UpdateSpecification, _ state: CollectionState, to document: BSONDocument, match: QueryMatch
    ) throws(StoreError) -> BSONDocument? {
        var updated = try specification.apply(to: document, match: match, isInsert: false)
        if let id = updated["_id"] {
            guard id == document["_id"] else {
                throw .immutableField("Performing an update on the path '_id' would modify the immutable field '_id'")
            }
        }
        updated["_id"] = document["_id"]
        updated = Self.withId(updated)
        guard updated != document else { return nil }
        try replaceDocument(
            state, old: document, new: updated, operationType: specification.isReplacement ? "replace" : "update")
        return updated
    }

    /// Inserts the document an upsert creates: the filter's equality fields, then the update applied
    /// as an insert (or the replacement, keeping the filter's `_id`).
    func upsertDocument(
        _ namespace: Namespace, filter: BSONDocument, specification: UpdateSpecification, update: BSONDocument
    ) throws(StoreError) -> BSONDocument {
        let seed = QueryPlanner.equalityFields(filter)
        var document: BSONDocument
        if specification.isReplacement {
            document = try specification.apply(to: [:], match: nil, isInsert: true)
            if document["_id"] == nil, let id = seed["_id"] { document["_id"] = id }
        } else {
            document = try specification.apply(to: seed, match: nil, isInsert: true)
            if let id = seed["_id"], let updated = document["_id"], id != updated {
                throw .immutableField("Performing an update on the path '_id' would modify the immutable field '_id'")
            }
        }
        document = Self.withId(document)
        let state = try collectionCreatingIfNeeded(namespace)
        try insertDocument(state, document)
        return document
    }

    func delete(_ namespace: Namespace, filter: BSONDocument, multi: Bool) throws(StoreError) -> DeleteResult {
        guard let state = collection(namespace) else { return DeleteResult(deletedCount: 0) }
        if state.indexes.isEmpty, !namespace.isChangeLogged, access == nil, let keys = Self.exactIdKeys(filter) {
            // Nothing to learn from the documents (no index entries to remove, no event to write): deleted by
            // key, unread, one statement each. A capped log's prune deletes its oldest records this way. A key
            // given twice finds nothing the second time, so it is counted once.
            var deleted = 0
            for key in keys {
                guard try engine.deleteDocument(collection: state.record.id, key: key) else { continue }
                wrote(state.namespace)
                deleted += 1
                if !multi { break }
            }
            return DeleteResult(deletedCount: deleted)
        }
        var statistics = StoreView.ScanStatistics()
        let matches = try view.matchingDocuments(state, filter: filter, limit: multi ? nil : 1, statistics: &statistics)
        for (document, _) in matches { try removeDocument(state, document) }
        return DeleteResult(deletedCount: matches.count)
    }

    /// The keys of `{_id: <id>}` or `{_id: {$in: [<id>, …]}}` whose ids are ObjectIds or strings (which match
    /// exactly the documents stored under their keys), repeats included; nil for any other filter.
    static func exactIdKeys(_ filter: BSONDocument) -> [[UInt8]]? {
        guard filter.count == 1, let id = filter["_id"] else { return nil }
        let ids: [BSON]
        switch id {
        case .objectId, .string: ids = [id]
        case .document(let condition):
            guard condition.count == 1, case .array(let values)? = condition["$in"] else { return nil }
            ids = values
        default: return nil
        }
        var keys: [[UInt8]] = []
        keys.reserveCapacity(ids.count)
        for id in ids {
            switch id {
            case .objectId, .string: break
            default: return nil
            }
            guard let key = try? IndexKey.encode(id) else { return nil }
            keys.append(key)
        }
        return keys
    }

    enum Modification {
        case update(BSONDocument, arrayFilters: [BSONDocument])
        case replace(BSONDocument)
        case delete
    }

    func findOneAndModify(
        _ namespace: Namespace, filter: BSONDocument, modification: Modification, options: FindOneAndModifyOptions
    ) throws(StoreError) -> BSONDocument? {
        let projection = try options.projection.flatMap { p throws(StoreError) in p.isEmpty ? nil : try Projection(p) }
        let sort = try options.sort.flatMap { s throws(StoreError) in s.isEmpty ? nil : try SortSpecification(s) }
        var specification: UpdateSpecification?
        var update: BSONDocument = [:]
        switch modification {
        case .update(let document, let arrayFilters):
            specification = try Self.compile(document, arrayFilters: arrayFilters, replacement: false)
            update = document
        case .replace(let document):
            specification = try Self.compile(document, arrayFilters: [], replacement: true)
            update = document
        case .delete: break
        }
        var statistics = StoreView.ScanStatistics()
        var matches =
            try collection(namespace).map { state throws(StoreError) in
                try view.matchingDocuments(state, filter: filter, limit: sort == nil ? 1 : nil, statistics: &statistics)
            } ?? []
        if let sort { matches = StoreView.sorted(matches, by: sort) }
        var result: BSONDocument?
        var resultMatch = QueryMatch()
        if let (document, match) = matches.first {
            let state = collection(namespace)!
            resultMatch = match
            if let specification {
                let updated = try apply(specification, state, to: document, match: match) ?? document
                result = options.returnDocument == .after ? updated : document
            } else {
                try removeDocument(state, document)
                result = document
            }
        } else if options.upsert, let specification {
            let inserted = try upsertDocument(namespace, filter: filter, specification: specification, update: update)
            result = options.returnDocument == .after ? inserted : nil
        }
        guard let result, let projection else { return result }
        return try projection.apply(to: result, match: resultMatch)
    }

    func bulkWrite(_ namespace: Namespace, _ models: [WriteModel], ordered: Bool) throws(StoreError)
        -> (result: BulkWriteResult, errors: [WriteError])
    {
        guard !models.isEmpty else { throw .location(16, "Invalid BatchSize: bulkWrite needs at least one operation") }
        var result = BulkWriteResult()
        var errors: [WriteError] = []
        for (position, model) in models.enumerated() {
            do {
                try withSavepoint { () throws(StoreError) in
                    try perform(model, at: position, in: namespace, into: &result)
                }
            } catch {
                errors.append(WriteError(index: position, code: error.code, errmsg: error.message))
                if ordered { break }
            }
        }
        return (result, errors)
    }

    private func perform(
        _ model: WriteModel, at position: Int, in namespace: Namespace, into result: inout BulkWriteResult
    )
        throws(StoreError)
    {
        var update: UpdateResult?
        switch model {
        case .insertOne(let document):
            let document = Self.withId(document)
            try insertDocument(try collectionCreatingIfNeeded(namespace), document)
            result.insertedCount += 1
            result.insertedIds[position] = document["_id"]
        case .updateOne(let filter, let document, let upsert, let arrayFilters):
            update = try self.update(
                namespace, filter: filter, update: document, multi: false, upsert: upsert, arrayFilters: arrayFilters,
                replacement: false)
        case .updateMany(let filter, let document, let upsert, let arrayFilters):
            update = try self.update(
                namespace, filter: filter, update: document, multi: true, upsert: upsert, arrayFilters: arrayFilters,
                replacement: false)
        case .replaceOne(let filter, let replacement, let upsert):
            update = try self.update(
                namespace, filter: filter, update: replacement, multi: false, upsert: upsert, arrayFilters: [],
                replacement: true)
        case .deleteOne(let filter):
            result.deletedCount += try delete(namespace, filter: filter, multi: false).deletedCount
        case .deleteMany(let filter):
            result.deletedCount += try delete(namespace, filter: filter, multi: true).deletedCount
        }
        if let update {
            result.matchedCount += update.matchedCount
            result.modifiedCount += update.modifiedCount
            if let id = update.upsertedId { result.upsertedIds[position] = id }
        }
    }
}

extension IndexDefinition {
    /// The values at this (single-field) index's path, arrays expanded; nothing for a missing field.
    func values(in document: BSONDocument) -> [BSON] {
        guard let field = fields.first else { return [] }
        var values: [BSON] = []
        Self.collectValues(.document(document), field.components[...], into: &values, emptyArrayGivesUndefined: false)
        return values
    }
}
