import BSON
import DocumentStore
import Switchyard

/// One `mongodb-atlas` service action as the Realm SDKs' `MongoCollection` sends it: the action's name and one
/// argument `{database, collection, query | filter, update, document(s), pipeline, projection, sort, limit,
/// upsert, arrayFilters, returnNewDocument, maxTimeMS}`, answered in the shapes the SDKs parse (`insertedId`, `insertedIds`,
/// `matchedCount`, `modifiedCount`, `upsertedId`, `deletedCount`; counts are int32, `count` is int64).
///
/// Reads (find, findOne, count, aggregate) are held to the client's `maxTimeMS`, or to the server's default
/// budget when it sends none, and fail with `MaxTimeMSExpired` past it.
///
/// The app's data access rules apply as App Services applies them (`UserDataAccess`): a collection without rules
/// is refused with `NoMatchingRuleFound`, reads return only the documents and fields the user's role permits, and
/// writes the role or the collection's schema refuses fail whole. The reserved `admin`, `local` and `config`
/// databases (where Switchyard keeps users, credentials and keys) are refused.
struct MongoServiceCall {
    static let actions: Set<String> = [
        "find", "findOne", "insertOne", "insertMany", "aggregate", "count", "updateOne", "updateMany", "deleteOne",
        "deleteMany", "findOneAndUpdate", "findOneAndReplace", "findOneAndDelete",
    ]

    let store: DocumentStore
    let access: UserDataAccess
    let defaultTimeLimit: Duration

    func run(action: String, arguments: [BSON]) async throws -> BSON {
        guard Self.actions.contains(action) else {
            throw APIError(
                status: 404, code: "FunctionNotFound",
                message: "function not found: '\(action.prefix(64))' is not an action of the mongodb-atlas service")
        }
        guard arguments.count == 1, let argument = arguments[0].documentValue else {
            throw Self.invalid("\(action) takes one argument, a document naming the database and collection")
        }
        let collection = try Self.collection(argument, in: store, access: access, action: action)
        do {
            return try await perform(action, argument, on: collection)
        } catch let error as StoreError {
            throw APIError.storageFailure(code: error.code) ?? Self.refusal(error.message, code: error.code)
                ?? APIError(status: 400, code: "MongoDBError", message: "\(action): \(error.message)")
        } catch let error as BulkWriteError {
            throw error.writeErrors.lazy.compactMap {
                APIError.storageFailure(code: $0.code) ?? Self.refusal($0.errmsg, code: $0.code)
            }.first
                ?? APIError(status: 400, code: "MongoDBError", message: "\(action): \(error)")
        }
    }

    private func perform(_ action: String, _ argument: BSONDocument, on collection: DocumentCollection) async throws
        -> BSON
    {
        let filter = try Self.document(argument, "query", or: "filter", action: action) ?? [:]
        let projection = try Self.document(argument, "projection", or: "project", action: action)
        let sort = try Self.document(argument, "sort", action: action)
        let maxTime = try Self.count(argument, "maxTimeMS", action: action)
        let timeLimit = maxTime > 0 ? Duration.milliseconds(maxTime) : defaultTimeLimit
        switch action {
        case "find":
            let limit = try Self.count(argument, "limit", action: action)
            let options = FindOptions(projection: projection, sort: sort, limit: limit, maxTime: timeLimit)
            return .array(try await collection.find(filter, options: options).toArray().map(BSON.document))
        case "findOne":
            let options = FindOptions(projection: projection, sort: sort, maxTime: timeLimit)
            return try await collection.findOne(filter, options: options).map(BSON.document) ?? .null
        case "count":
            let limit = try Self.count(argument, "limit", action: action)
            return .int64(Int64(try await collection.countDocuments(filter, limit: limit, maxTime: timeLimit)))
        case "aggregate":
            guard let pipeline = try Self.documents(argument, "pipeline", action: action) else {
                throw Self.invalid("aggregate needs 'pipeline', an array")
            }
            if let first = pipeline.first?.keys.first, first == "$search" || first == "$searchMeta",
                !access.permitsSearch(collection.namespace)
            {
                throw APIError(status: 403, code: "MongoDBError", message: "search not permitted")
            }
            return .array(try await collection.aggregate(pipeline, maxTime: timeLimit).map(BSON.document))
        case "insertOne":
            guard let document = argument["document"]?.documentValue else {
                throw Self.invalid("insertOne needs 'document', a document")
            }
            return ["insertedId": try await collection.insertOne(document).insertedId]
        case "insertMany":
            guard let documents = try Self.documents(argument, "documents", action: action) else {
                throw Self.invalid("insertMany needs 'documents', an array of documents")
            }
            let result = try await collection.insertMany(documents)
            return ["insertedIds": .array(result.insertedIds.sorted { $0.key < $1.key }.map(\.value))]
        case "updateOne", "updateMany":
            guard let update = argument["update"]?.documentValue else {
                throw Self.invalid("\(action) needs 'update', a document")
            }
            let upsert = argument["upsert"]?.boolValue ?? false
            let arrayFilters = try Self.documents(argument, "arrayFilters", action: action) ?? []
            let result =
                action == "updateOne"
                ? try await collection.updateOne(filter, update, upsert: upsert, arrayFilters: arrayFilters)
                : try await collection.updateMany(filter, update, upsert: upsert, arrayFilters: arrayFilters)
            var answer: BSONDocument = [
                "matchedCount": .int32(Int32(clamping: result.matchedCount)),
                "modifiedCount": .int32(Int32(clamping: result.modifiedCount)),
            ]
            if let id = result.upsertedId { answer.append("upsertedId", id) }
            return .document(answer)
        case "deleteOne", "deleteMany":
            let result =
                action == "deleteOne" ? try await collection.deleteOne(filter) : try await collection.deleteMany(filter)
            return ["deletedCount": .int32(Int32(clamping: result.deletedCount))]
        case "findOneAndUpdate", "findOneAndReplace":
            guard let update = (argument["update"] ?? argument["replacement"])?.documentValue else {
                throw Self.invalid("\(action) needs 'update', a document")
            }
            let options = FindOneAndModifyOptions(
                sort: sort, projection: projection,
                returnDocument: argument["returnNewDocument"]?.boolValue == true ? .after : .before,
                upsert: argument["upsert"]?.boolValue ?? false,
                arrayFilters: action == "findOneAndUpdate"
                    ? try Self.documents(argument, "arrayFilters", action: action) ?? [] : [])
            let document =
                action == "findOneAndUpdate"
                ? try await collection.findOneAndUpdate(filter, update, options: options)
                : try await collection.findOneAndReplace(filter, update, options: options)
            return document.map(BSON.document) ?? .null
        default:  // findOneAndDelete
            return try await collection.findOneAndDelete(filter, sort: sort, projection: projection).map(BSON.document)
                ?? .null
        }
    }

    private static func collection(
        _ argument: BSONDocument, in store: DocumentStore, access: UserDataAccess, action: String
    ) throws(APIError) -> DocumentCollection {
        guard let database = argument["database"]?.stringValue, !database.isEmpty,
            let collection = argument["collection"]?.stringValue, !collection.isEmpty
        else { throw invalid("\(action) needs 'database' and 'collection', non-empty strings") }
        return try Self.collection(
            named: Namespace(database: database, collection: collection), in: store, access: access)
    }

    /// The collection held to `access`, unless its database is one of the reserved ones or no rule governs it.
    static func collection(named namespace: Namespace, in store: DocumentStore, access: UserDataAccess)
        throws(APIError) -> DocumentCollection
    {
        guard !Namespace.unloggedDatabases.contains(namespace.database) else {
            throw APIError(
                status: 403, code: "PermissionDenied",
                message:
                    "database '\(namespace.database)' is reserved: clients cannot read or write it through mongodb-atlas"
            )
        }
        guard access.governs(namespace) else {
            throw APIError(
                status: 403, code: "NoMatchingRuleFound", message: "no rule exists for namespace '\(namespace)'")
        }
        return store.database(namespace.database, access: access).collection(namespace.collection)
    }

    private static func document(_ argument: BSONDocument, _ name: String, or alias: String? = nil, action: String)
        throws(APIError) -> BSONDocument?
    {
        guard let value = argument[name] ?? alias.flatMap({ argument[$0] }), value != .null else { return nil }
        guard let document = value.documentValue else { throw invalid("\(action): '\(name)' must be a document") }
        return document
    }

    /// An argument that is an array of documents (a pipeline, documents to insert, array filters); nil when absent.
    private static func documents(_ argument: BSONDocument, _ name: String, action: String) throws(APIError)
        -> [BSONDocument]?
    {
        guard let value = argument[name], value != .null else { return nil }
        guard let values = value.arrayValue else {
            throw invalid("\(action): '\(name)' must be an array of documents")
        }
        return try values.map { value throws(APIError) -> BSONDocument in
            guard let document = value.documentValue else {
                throw invalid("\(action): every entry of '\(name)' must be a document")
            }
            return document
        }
    }

    private static func count(_ argument: BSONDocument, _ name: String, action: String) throws(APIError) -> Int {
        guard let value = argument[name], value != .null else { return 0 }
        guard let number = value.int64Value, number >= 0, number <= Int64(Int32.max) else {
            throw invalid("\(action): '\(name)' must be a non-negative whole number")
        }
        return Int(number)
    }

    /// A refusal by the rules or the schema, as App Services answers it; nil for any other error.
    private static func refusal(_ message: String, code: StoreError.Code) -> APIError? {
        switch code {
        case .unauthorized where message.hasPrefix("no rule exists"):
            APIError(status: 403, code: "NoMatchingRuleFound", message: message)
        case .unauthorized: APIError(status: 403, code: "MongoDBError", message: message)
        case .documentValidationFailure: APIError(status: 400, code: "SchemaValidationFailedWrite", message: message)
        default: nil
        }
    }

    private static func invalid(_ message: String) -> APIError {
        APIError(status: 400, code: "InvalidParameter", message: message)
    }
}
