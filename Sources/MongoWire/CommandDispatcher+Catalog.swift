import BSON
import DocumentStore

/// The catalog: create, drop, dropDatabase, renameCollection, the index commands, listDatabases, listCollections
/// and dbStats.
extension CommandDispatcher {
    func create(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let name = try arguments.collection()
        for option in ["viewOn", "capped", "timeseries", "clusteredIndex"] where arguments.command[option] != nil {
            throw StoreError(code: .invalidOptions, message: "create's '\(option)' is not supported by Switchyard")
        }
        let images = try arguments.document("changeStreamPreAndPostImages")?["enabled"]?.boolValue ?? false
        try await store.database(database).createCollection(
            name, options: CreateCollectionOptions(changeStreamPreAndPostImages: images))
        return CommandReply.ok()
    }

    /// collMod: `changeStreamPreAndPostImages` turns image recording on or off; the store keeps no validators, TTL
    /// or hidden indexes, so those options are refused rather than ignored.
    func collMod(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let collection = try collection(arguments, database: database)
        var images: Bool?
        for (key, value) in arguments.command where key != arguments.name && !key.hasPrefix("$") {
            switch key {
            case "changeStreamPreAndPostImages":
                guard let enabled = value.documentValue?["enabled"]?.boolValue else {
                    throw StoreError(
                        code: .typeMismatch,
                        message: "BSON field 'collMod.changeStreamPreAndPostImages' takes {enabled: <bool>}")
                }
                images = enabled
            case "validator", "validationLevel", "validationAction", "index", "expireAfterSeconds", "viewOn",
                "pipeline", "timeseries", "clusteredIndex":
                throw StoreError(
                    code: .invalidOptions,
                    message: "collMod's '\(key)' is not supported by Switchyard: its store has no validators, views, "
                        + "TTL or hidden indexes")
            case "lsid", "txnNumber", "writeConcern", "comment", "maxTimeMS", "apiVersion", "apiStrict",
                "apiDeprecationErrors", "readPreference":
                continue
            default:
                throw StoreError(code: 40415, message: "BSON field 'collMod.\(key)' is an unknown field.")
            }
        }
        if let images { try await collection.setChangeStreamPreAndPostImages(images) }
        guard try await store.database(database).listCollectionNames().contains(collection.name) else {
            throw StoreError(code: .namespaceNotFound, message: "ns does not exist: \(collection.namespace)")
        }
        return CommandReply.ok()
    }

    func drop(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let collection = try collection(arguments, database: database)
        let indexes = (try? await collection.listIndexes())?.count ?? 0
        // MongoDB 7 answers ok for a collection that does not exist.
        try await collection.drop()
        return CommandReply.ok(["nIndexesWas": .int32(Int32(indexes)), "ns": .string(collection.namespace.description)])
    }

    func dropDatabase(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        try await store.dropDatabase(database)
        return CommandReply.ok(["dropped": .string(database)])
    }

    func renameCollection(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        guard let source = arguments.command["renameCollection"]?.stringValue.flatMap(Self.namespace),
            let target = arguments.command["to"]?.stringValue.flatMap(Self.namespace)
        else {
            throw StoreError(code: 73, message: "renameCollection and to take full namespaces, <database>.<collection>")
        }
        guard database == "admin" else {
            throw StoreError(
                code: .unauthorized, message: "renameCollection may only be run against the admin database.")
        }
        guard source.database == target.database else {
            throw StoreError(
                code: .illegalOperation, message: "renaming across databases is not supported by Switchyard")
        }
        try await store.database(source.database).collection(source.collection).rename(
            to: target.collection, dropTarget: arguments.bool("dropTarget"))
        return CommandReply.ok()
    }

    static func namespace(_ text: String) -> (database: String, collection: String)? {
        guard let dot = text.firstIndex(of: "."), dot != text.startIndex, text.index(after: dot) != text.endIndex
        else { return nil }
        return (String(text[..<dot]), String(text[text.index(after: dot)...]))
    }

    func createIndexes(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let collection = try collection(arguments, database: database)
        guard let specifications = try arguments.documents("indexes"), !specifications.isEmpty else {
            throw StoreError(code: .badValue, message: "Must specify at least one index to create")
        }
        let existed = try await store.database(database).listCollectionNames().contains(collection.name)
        let before = existed ? try await collection.listIndexes().count : 1
        for specification in specifications {
            guard let keys = specification["key"]?.documentValue, !keys.isEmpty else {
                throw StoreError(code: .failedToParse, message: "The 'key' field of an index specification is required")
            }
            try await collection.createIndex(
                keys, unique: specification["unique"]?.boolValue ?? false, name: specification["name"]?.stringValue)
        }
        let after = try await collection.listIndexes().count
        return CommandReply.ok([
            "numIndexesBefore": .int32(Int32(before)), "numIndexesAfter": .int32(Int32(after)),
            "createdCollectionAutomatically": .bool(!existed),
        ])
    }

    func listIndexes(_ arguments: CommandArguments, database: String, client: ClientConnection) async throws
        -> BSONDocument
    {
        let collection = try collection(arguments, database: database)
        guard try await store.database(database).listCollectionNames().contains(collection.name) else {
            throw StoreError(code: .namespaceNotFound, message: "ns does not exist: \(collection.namespace)")
        }
        let indexes = try await collection.listIndexes()
        return try firstBatch(
            indexes, namespace: collection.namespace.description, batchSize: 0, singleBatch: true, client: client)
    }

    func dropIndexes(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let collection = try collection(arguments, database: database)
        let indexes = try await collection.listIndexes()
        var names: [String] = []
        switch arguments.command["index"] {
        case .string("*")?: names = indexes.compactMap { $0["name"]?.stringValue }.filter { $0 != "_id_" }
        case .string(let name)?: names = [name]
        case .array(let values)?: names = values.compactMap(\.stringValue)
        case .document(let keys)?:
            guard let name = indexes.first(where: { $0["key"]?.documentValue == keys })?["name"]?.stringValue else {
                throw StoreError(code: .indexNotFound, message: "can't find index with key: \(keys)")
            }
            names = [name]
        default:
            throw StoreError(
                code: .failedToParse, message: "dropIndexes takes 'index': a name, names, a key pattern or '*'")
        }
        for name in names {
            guard name != "_id_" else { throw StoreError(code: 72, message: "cannot drop _id index") }
            try await collection.dropIndex(name)
        }
        return CommandReply.ok(["nIndexesWas": .int32(Int32(indexes.count))])
    }

    /// The databases, or those the user holds a role on (MongoDB's `authorizedDatabases`).
    func listDatabases(_ arguments: CommandArguments, client: ClientConnection) async throws -> BSONDocument {
        var names = try await store.listDatabaseNames()
        if let listable = listableDatabases(client: client) { names = names.filter(listable.contains) }
        let filter = try arguments.document("filter").map { filter throws(StoreError) in try QueryFilter(filter) }
        var databases: [BSON] = []
        for name in names {
            let entry: BSONDocument = ["name": .string(name), "sizeOnDisk": .int64(0), "empty": .bool(false)]
            if let filter, !filter.matches(entry) { continue }
            databases.append(arguments.bool("nameOnly") ? ["name": .string(name)] : .document(entry))
        }
        return CommandReply.ok(["databases": .array(databases), "totalSize": .int64(0)])
    }

    func listCollections(_ arguments: CommandArguments, database: String, client: ClientConnection) async throws
        -> BSONDocument
    {
        let names = try await store.database(database).listCollectionNames()
        let filter = try arguments.document("filter").map { filter throws(StoreError) in try QueryFilter(filter) }
        var entries: [BSONDocument] = []
        for name in names.sorted() {
            let entry: BSONDocument = [
                "name": .string(name), "type": "collection", "options": [:], "info": ["readOnly": .bool(false)],
                "idIndex": ["v": .int32(2), "key": ["_id": .int32(1)], "name": "_id_"],
            ]
            if let filter, !filter.matches(entry) { continue }
            entries.append(arguments.bool("nameOnly") ? ["name": .string(name), "type": "collection"] : entry)
        }
        let batchSize = try arguments.document("cursor").flatMap { try CommandArguments($0).integer("batchSize") } ?? 0
        return try firstBatch(
            entries, namespace: "\(database).$cmd.listCollections", batchSize: batchSize, singleBatch: false,
            client: client)
    }

    func dbStats(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let db = store.database(database)
        let names = try await db.listCollectionNames()
        var objects = 0
        var indexes = 0
        for name in names {
            objects += try await db.collection(name).estimatedDocumentCount()
            indexes += try await db.collection(name).listIndexes().count
        }
        return CommandReply.ok([
            "db": .string(database), "collections": .int64(Int64(names.count)), "views": .int64(0),
            "objects": .int64(Int64(objects)), "avgObjSize": .double(0), "dataSize": .double(0),
            "storageSize": .double(0), "indexes": .int64(Int64(indexes)), "indexSize": .double(0),
            "totalSize": .double(0), "scaleFactor": .double(1),
        ])
    }
}
