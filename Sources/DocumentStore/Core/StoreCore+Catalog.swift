import BSON

/// Databases, collections and indexes.
extension StoreCore {
    func createCollection(_ namespace: Namespace, options: CreateCollectionOptions) throws(StoreError) {
        guard collection(namespace) == nil else {
            throw StoreError(code: .namespaceExists, message: "Collection \(namespace) already exists.")
        }
        var recorded: BSONDocument = [:]
        if options.changeStreamPreAndPostImages { recorded["changeStreamPreAndPostImages"] = ["enabled": true] }
        _ = try collectionCreatingIfNeeded(namespace, options: recorded)
    }

    /// Turns the recording of pre- and post-images on or off (MongoDB's `collMod`); later writes follow it.
    /// Logs a `modify` event: the option as set, and the collection's options before it.
    func setChangeStreamPreAndPostImages(_ namespace: Namespace, enabled: Bool) throws(StoreError) {
        guard var state = collection(namespace) else {
            throw .namespaceNotFound("ns does not exist: \(namespace)")
        }
        try markCatalogChange()
        let before = state.record.options
        state.record.options["changeStreamPreAndPostImages"] = enabled ? ["enabled": true] : nil
        try engine.updateCollection(state.record)
        wrote(namespace)
        catalog[namespace] = state
        try appendChange([
            "operationType": "modify", "ns": namespaceDocument(namespace),
            "operationDescription": ["changeStreamPreAndPostImages": ["enabled": .bool(enabled)]],
            "stateBeforeChange": ["collectionOptions": .document(before)],
        ])
    }

    /// Drops the collection and logs a `drop` event; false when there was no such collection.
    @discardableResult
    func dropCollection(_ namespace: Namespace) throws(StoreError) -> Bool {
        guard let state = collection(namespace) else { return false }
        try markCatalogChange()
        try engine.deleteCollection(id: state.record.id)
        wrote(namespace)
        catalog[namespace] = nil
        try appendChange(["operationType": "drop", "ns": namespaceDocument(namespace)])
        return true
    }

    func dropDatabase(_ database: String) throws(StoreError) {
        let names = view.listCollectionNames(database: database)
        guard !names.isEmpty else { return }
        for name in names { try dropCollection(Namespace(database: database, collection: name)) }
        try appendChange(["operationType": "dropDatabase", "ns": ["db": .string(database)]])
    }

    func rename(_ namespace: Namespace, to target: Namespace, dropTarget: Bool) throws(StoreError) {
        guard var state = collection(namespace) else {
            throw .namespaceNotFound("source namespace does not exist: \(namespace)")
        }
        try Namespace.validate(database: target.database)
        try Namespace.validate(collection: target.collection, in: target.database)
        guard target != namespace else {
            throw StoreError(code: .illegalOperation, message: "Can't rename a collection to itself")
        }
        if collection(target) != nil {
            guard dropTarget else {
                throw StoreError(code: .namespaceExists, message: "target namespace exists: \(target)")
            }
            try dropCollection(target)
        }
        try markCatalogChange()
        state.record.database = target.database
        state.record.name = target.collection
        try engine.updateCollection(state.record)
        wrote(namespace)
        wrote(target)
        catalog[namespace] = nil
        catalog[target] = state
        // `operationDescription` is for `showExpandedEvents` streams only (`StoreView.render`).
        try appendChange([
            "operationType": "rename", "ns": namespaceDocument(namespace), "to": namespaceDocument(target),
            "operationDescription": ["to": namespaceDocument(target)],
        ])
    }

    /// Creates the index (and the collection, when missing) and logs a `createIndexes` event, unless
    /// `logged` is false; an index that exists as asked is left as it is, with no event.
    func createIndex(
        _ namespace: Namespace, keys: BSONDocument, unique: Bool, name: String?, logged: Bool = true
    ) throws(StoreError) -> String {
        let name = name ?? IndexDefinition.defaultName(for: keys)
        let probe = try IndexDefinition(id: 0, name: name, keyPattern: keys, unique: unique)
        if keys == ["_id": 1] || name == "_id_" {
            guard keys.count == 1, keys["_id"]?.doubleValue == 1 else {
                throw StoreError(
                    code: .invalidIndexSpecificationOption, message: "index name '_id_' is reserved for the _id index")
            }
            _ = try collectionCreatingIfNeeded(namespace, logged: logged)
            return "_id_"
        }
        var state = try collectionCreatingIfNeeded(namespace, logged: logged)
        if let existing = state.indexes.first(where: { $0.name == name || $0.keyPattern == keys }) {
            if existing.name == name, existing.keyPattern == keys, existing.unique == unique { return name }
            if existing.name == name {
                throw StoreError(
                    code: .indexKeySpecsConflict,
                    message:
                        "An existing index has the same name as the requested index. Requested index: \(probe.specification), existing index: \(existing.specification)"
                )
            }
            throw StoreError(
                code: .indexOptionsConflict, message: "Index already exists with a different name: \(existing.name)")
        }
        // Before the scan: the catalog change waits for the writes appending before it, and the scan then sees them.
        try markCatalogChange()
        let id = try engine.insertIndex(collection: state.record.id, specification: probe.specification)
        wrote(namespace)
        var index = probe
        index.id = id
        var building = state
        building.indexes = [index]
        // Entries go in while the scan visits one body at a time, and uniqueness is checked against the
        // entries written so far, so building an index holds one document in memory, not the collection.
        try engine.scanDocuments(collection: state.record.id) { row, body throws(StoreError) in
            let document = try DocumentEncoding.decode(body)
            for entry in try index.entries(for: document) {
                if unique, let holder = try engine.firstIndexEntry(index: id, key: entry.key), holder != row {
                    throw duplicateKeyError(building, index: name, key: index.describe(entry))
                }
                try engine.insertIndexEntry(index: id, key: entry.key, row: row)
            }
            return true
        }
        state.indexes.append(index)
        catalog[namespace] = state
        if logged { try appendIndexChange("createIndexes", namespace, index) }
        return name
    }

    func dropIndex(_ namespace: Namespace, name: String) throws(StoreError) {
        guard var state = collection(namespace) else { throw .namespaceNotFound("ns not found \(namespace)") }
        guard name != "_id_" else { throw StoreError(code: .invalidOptions, message: "cannot drop _id index") }
        guard let position = state.indexes.firstIndex(where: { $0.name == name }) else {
            throw StoreError(code: .indexNotFound, message: "index not found with name [\(name)]")
        }
        try markCatalogChange()
        try engine.deleteIndex(id: state.indexes[position].id)
        wrote(namespace)
        let index = state.indexes.remove(at: position)
        catalog[namespace] = state
        try appendIndexChange("dropIndexes", namespace, index)
    }

    /// A `createIndexes` or `dropIndexes` event: MongoDB describes the index as `listIndexes` shows it.
    private func appendIndexChange(_ type: String, _ namespace: Namespace, _ index: IndexDefinition)
        throws(StoreError)
    {
        try appendChange([
            "operationType": .string(type), "ns": namespaceDocument(namespace),
            "operationDescription": ["indexes": [.document(index.specification)]],
        ])
    }

}
