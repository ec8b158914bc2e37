import BSON
import DocumentStore
import Switchyard

/// The app's data: databases, collections and their documents. Writes go through the store like any other,
/// so they fire the app's triggers.
///
/// - `GET  /databases` → `{databases: [{name, collections: [{name, count}]}]}`
/// - `GET  /databases/{db}/collections` → `{collections: [{name, count}]}`
/// - `GET  /databases/{db}/collections/{c}/documents?filter=&sort=&projection=&limit=&skip=&mode=` →
///   `{documents, count}` (`count`: all matches; `limit` default 20, at most 1,000; filter, sort and projection
///   are Extended JSON documents; `mode=canonical` answers canonical Extended JSON)
/// - `POST /databases/{db}/collections/{c}/documents` with the document → 201 `{insertedId}`
/// - `POST /databases/{db}/collections/{c}/update` with `{filter, update, multi?, upsert?}` (an `update` without
///   `$` operators replaces one document) → `{matchedCount, modifiedCount, upsertedId?}`
/// - `POST /databases/{db}/collections/{c}/delete` with `{filter, multi?}` → `{deletedCount}`
extension AdminAPI {
    func addCollectionRoutes(to routes: inout RouterGroup) {
        let store = app.store
        routes.add("GET", "/databases") { _, _ in
            var databases: [BSON] = []
            for name in try await store.listDatabaseNames().sorted() {
                databases.append(
                    [
                        "name": .string(name),
                        "collections": .array(try await Self.collections(of: store.database(name))),
                    ])
            }
            return .json(["databases": .array(databases)])
        }
        routes.add("GET", "/databases/{db}/collections") { _, parameters in
            let database = store.database(parameters["db"] ?? "")
            return .json(["collections": .array(try await Self.collections(of: database))])
        }
        routes.add("GET", "/databases/{db}/collections/{collection}/documents") { request, parameters in
            let collection = Self.collection(store, parameters)
            let filter = try request.documentArgument("filter") ?? [:]
            let options = FindOptions(
                projection: try request.documentArgument("projection"), sort: try request.documentArgument("sort"),
                skip: try request.integerArgument("skip", default: 0, in: 0...Int(Int32.max)),
                limit: try request.integerArgument("limit", default: 20, in: 1...1000))
            let mode: ExtendedJSON.Mode
            switch request.query["mode"] {
            case nil, "", "relaxed": mode = .relaxed
            case "canonical": mode = .canonical
            case let other?: throw APIError.badRequest("'mode' must be relaxed or canonical, not '\(other)'")
            }
            let documents = try await collection.find(filter, options: options).toArray()
            let count = try await collection.countDocuments(filter)
            let body: BSONDocument = [
                "documents": .array(documents.map { .document($0) }), "count": .int64(Int64(count)),
            ]
            return .json(body.extendedJSONBytes(mode: mode))
        }
        routes.add("POST", "/databases/{db}/collections/{collection}/documents") { request, parameters in
            let result = try await Self.collection(store, parameters).insertOne(try request.bodyDocument())
            return .json(["insertedId": result.insertedId], status: 201)
        }
        routes.add("POST", "/databases/{db}/collections/{collection}/update") { request, parameters in
            let body = try request.bodyDocument()
            let filter = try Self.document(body, "filter")
            let update = try Self.document(body, "update")
            let multi = try Self.flag(body, "multi")
            let upsert = try Self.flag(body, "upsert")
            let collection = Self.collection(store, parameters)
            let result: UpdateResult
            if update.keys.first?.hasPrefix("$") == true {
                result =
                    multi
                    ? try await collection.updateMany(filter, update, upsert: upsert)
                    : try await collection.updateOne(filter, update, upsert: upsert)
            } else {
                guard !multi else {
                    throw APIError.badRequest(
                        "a replacement (an 'update' without $ operators) replaces one document; drop 'multi'")
                }
                result = try await collection.replaceOne(filter, update, upsert: upsert)
            }
            var answer: BSONDocument = [
                "matchedCount": .int64(Int64(result.matchedCount)),
                "modifiedCount": .int64(Int64(result.modifiedCount)),
            ]
            if let id = result.upsertedId { answer.append("upsertedId", id) }
            return .json(answer)
        }
        routes.add("POST", "/databases/{db}/collections/{collection}/delete") { request, parameters in
            let body = try request.bodyDocument()
            let filter = try Self.document(body, "filter")
            let collection = Self.collection(store, parameters)
            let result =
                try Self.flag(body, "multi")
                ? try await collection.deleteMany(filter) : try await collection.deleteOne(filter)
            return .json(["deletedCount": .int64(Int64(result.deletedCount))])
        }
    }

    private static func collection(_ store: DocumentStore, _ parameters: RouteParameters) -> DocumentCollection {
        store.database(parameters["db"] ?? "").collection(parameters["collection"] ?? "")
    }

    private static func collections(of database: Database) async throws -> [BSON] {
        var collections: [BSON] = []
        for name in try await database.listCollectionNames().sorted() {
            let count = try await database.collection(name).estimatedDocumentCount()
            collections.append(["name": .string(name), "count": .int64(Int64(count))])
        }
        return collections
    }

    /// A required document field of a request body.
    private static func document(_ body: BSONDocument, _ key: String) throws(APIError) -> BSONDocument {
        guard let value = body[key] else { throw APIError.badRequest("the body needs '\(key)' (a document)") }
        guard case .document(let document) = value else {
            throw APIError.badRequest("'\(key)' must be a document, not \(value.extendedJSON(mode: .relaxed))")
        }
        return document
    }

    /// An optional boolean field of a request body (false when absent).
    private static func flag(_ body: BSONDocument, _ key: String) throws(APIError) -> Bool {
        switch body[key] {
        case nil: return false
        case .bool(let value)?: return value
        case let other?:
            throw APIError.badRequest("'\(key)' must be true or false, not \(other.extendedJSON(mode: .relaxed))")
        }
    }
}
