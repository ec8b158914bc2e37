import BSON
import DocumentStore

/// insert, update, delete and findAndModify, answered with MongoDB's counts and `writeErrors`.
extension CommandDispatcher {
    func insert(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let collection = try collection(arguments, database: database)
        guard let documents = try arguments.documents("documents"), !documents.isEmpty else {
            throw StoreError(code: 9, message: "BSON field 'insert.documents' is missing or empty")
        }
        try checkBatch(documents.count)
        let ordered = arguments.command["ordered"]?.boolValue ?? true
        let prepared = documents.map { document -> BSONDocument in
            guard document["_id"] == nil else { return document }
            var withId: BSONDocument = ["_id": .objectId(ObjectId())]
            for (key, value) in document { withId.append(key, value) }
            return withId
        }
        do {
            let result = try await collection.insertMany(prepared, ordered: ordered)
            return CommandReply.ok(["n": .int32(Int32(result.insertedCount))])
        } catch let error as BulkWriteError {
            var writeErrors: [BSON] = []
            for failure in error.writeErrors {
                writeErrors.append(
                    .document(
                        await writeError(
                            index: failure.index, code: failure.code, message: failure.errmsg, in: collection,
                            document: failure.index < prepared.count ? prepared[failure.index] : nil)))
            }
            return CommandReply.ok([
                "n": .int32(Int32(error.result.insertedCount)), "writeErrors": .array(writeErrors),
            ])
        }
    }

    func update(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let collection = try collection(arguments, database: database)
        guard let statements = try arguments.documents("updates") else {
            throw StoreError(code: 40414, message: "BSON field 'update.updates' is missing but a required field")
        }
        try checkBatch(statements.count)
        let ordered = arguments.command["ordered"]?.boolValue ?? true
        var matched = 0
        var modified = 0
        var upserted: [BSON] = []
        var writeErrors: [BSON] = []
        for (index, statement) in statements.enumerated() {
            do {
                let result = try await runUpdate(statement, on: collection)
                matched += result.matched
                modified += result.modified
                if let id = result.upsertedId {
                    upserted.append(["index": .int32(Int32(index)), "_id": id])
                }
            } catch let error as StoreError {
                writeErrors.append(
                    .document(
                        await writeError(
                            index: index, code: error.code, message: error.message, in: collection, document: nil)))
                if ordered { break }
            }
        }
        var reply: BSONDocument = [
            "n": .int32(Int32(matched + upserted.count)), "nModified": .int32(Int32(modified)),
        ]
        if !upserted.isEmpty { reply["upserted"] = .array(upserted) }
        if !writeErrors.isEmpty { reply["writeErrors"] = .array(writeErrors) }
        return CommandReply.ok(reply)
    }

    private func runUpdate(_ statement: BSONDocument, on collection: DocumentCollection) async throws
        -> StatementResult
    {
        let arguments = CommandArguments(statement)
        let filter = try arguments.document("q") ?? [:]
        let upsert = arguments.bool("upsert")
        let multi = arguments.bool("multi")
        let arrayFilters = try arguments.documents("arrayFilters") ?? []
        try await checkHint(statement["hint"], on: collection)
        switch statement["u"] {
        case .document(let update)?:
            let result: UpdateResult
            if update.keys.first?.hasPrefix("$") == true {
                result =
                    multi
                    ? try await collection.updateMany(filter, update, upsert: upsert, arrayFilters: arrayFilters)
                    : try await collection.updateOne(filter, update, upsert: upsert, arrayFilters: arrayFilters)
            } else {
                guard !multi else {
                    throw StoreError(
                        code: .failedToParse, message: "multi update is not supported for replacement-style update")
                }
                result = try await collection.replaceOne(filter, update, upsert: upsert)
            }
            return StatementResult(
                matched: result.matchedCount, modified: result.modifiedCount, upsertedId: result.upsertedId)
        case .array(let stages)?:
            return try await pipelineUpdate(filter, stages, upsert: upsert, multi: multi, on: collection)
        default:
            throw StoreError(code: .failedToParse, message: "BSON field 'update.updates.u' is missing or not an object")
        }
    }

    func delete(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let collection = try collection(arguments, database: database)
        guard let statements = try arguments.documents("deletes") else {
            throw StoreError(code: 40414, message: "BSON field 'delete.deletes' is missing but a required field")
        }
        try checkBatch(statements.count)
        let ordered = arguments.command["ordered"]?.boolValue ?? true
        var deleted = 0
        var writeErrors: [BSON] = []
        for (index, statement) in statements.enumerated() {
            do {
                let arguments = CommandArguments(statement)
                let filter = try arguments.document("q") ?? [:]
                try await checkHint(statement["hint"], on: collection)
                let limit = try arguments.count("limit")
                guard limit <= 1 else {
                    throw StoreError(
                        code: .failedToParse, message: "The limit field in delete objects must be 0 or 1. Got \(limit)")
                }
                let result =
                    limit == 1 ? try await collection.deleteOne(filter) : try await collection.deleteMany(filter)
                deleted += result.deletedCount
            } catch let error as StoreError {
                writeErrors.append(
                    [
                        "index": .int32(Int32(index)), "code": .int32(Int32(error.code.rawValue)),
                        "errmsg": .string(error.message),
                    ])
                if ordered { break }
            }
        }
        var reply: BSONDocument = ["n": .int32(Int32(deleted))]
        if !writeErrors.isEmpty { reply["writeErrors"] = .array(writeErrors) }
        return CommandReply.ok(reply)
    }

    func findAndModify(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let collection = try collection(arguments, database: database)
        let filter = try arguments.document("query") ?? [:]
        let sort = try arguments.document("sort")
        let projection = try arguments.document("fields")
        let upsert = arguments.bool("upsert")
        let returnNew = arguments.bool("new")
        try await checkHint(arguments.command["hint"], on: collection)
        if arguments.bool("remove") {
            guard arguments.command["update"] == nil else {
                throw StoreError(code: .failedToParse, message: "Cannot specify both an update and remove=true")
            }
            let removed = try await collection.findOneAndDelete(filter, sort: sort, projection: projection)
            return CommandReply.ok([
                "lastErrorObject": ["n": .int32(removed == nil ? 0 : 1)],
                "value": removed.map { .document($0) } ?? .null,
            ])
        }
        guard case .document(let update)? = arguments.command["update"] else {
            if case .array(let stages)? = arguments.command["update"] {
                return try await pipelineFindAndModify(
                    filter, stages, sort: sort, projection: projection, upsert: upsert, returnNew: returnNew,
                    on: collection)
            }
            throw StoreError(code: .failedToParse, message: "Either an update or remove=true must be specified")
        }
        // Whether a match exists decides updatedExisting; the write itself is one atomic step of the store.
        let existing = try await collection.findOne(filter, options: FindOptions(projection: ["_id": 1], sort: sort))
        let options = FindOneAndModifyOptions(
            sort: sort, projection: projection, returnDocument: returnNew ? .after : .before, upsert: upsert,
            arrayFilters: try arguments.documents("arrayFilters") ?? [])
        let value =
            update.keys.first?.hasPrefix("$") == true
            ? try await collection.findOneAndUpdate(filter, update, options: options)
            : try await collection.findOneAndReplace(filter, update, options: options)
        var lastError: BSONDocument = [
            "n": .int32(existing != nil || upsert ? 1 : 0), "updatedExisting": .bool(existing != nil),
        ]
        if existing == nil, upsert, let id = value?["_id"] { lastError["upserted"] = id }
        return CommandReply.ok(["lastErrorObject": .document(lastError), "value": value.map { .document($0) } ?? .null])
    }

    private func checkBatch(_ count: Int) throws(StoreError) {
        guard count <= WireLimits.maxWriteBatchSize else {
            throw StoreError(
                code: 16,
                message:
                    "Write batch sizes must be between 1 and \(WireLimits.maxWriteBatchSize). Got \(count) operations.")
        }
    }

    /// A write error as MongoDB reports it; a duplicate key also names the index's key pattern and the value.
    func writeError(
        index: Int, code: StoreError.Code, message: String, in collection: DocumentCollection, document: BSONDocument?
    ) async -> BSONDocument {
        var error: BSONDocument = [
            "index": .int32(Int32(index)), "code": .int32(Int32(truncatingIfNeeded: code.rawValue)),
            "errmsg": .string(message),
        ]
        guard code == .duplicateKey, let indexName = Self.indexName(inDuplicateKeyMessage: message),
            let indexes = try? await collection.listIndexes(),
            let keyPattern = indexes.first(where: { $0["name"]?.stringValue == indexName })?["key"]?.documentValue
        else { return error }
        error["keyPattern"] = .document(keyPattern)
        if let document {
            var keyValue: BSONDocument = [:]
            for field in keyPattern.keys { keyValue[field] = document.value(atPath: field) ?? .null }
            error["keyValue"] = .document(keyValue)
        }
        return error
    }

    static func indexName(inDuplicateKeyMessage message: String) -> String? {
        guard let start = message.range(of: " index: ")?.upperBound,
            let end = message[start...].range(of: " dup key:")?.lowerBound
        else { return nil }
        return String(message[start..<end])
    }

    /// Refuses a hint naming no index, as MongoDB does; a hint that names one is satisfied by the store's planner.
    func checkHint(_ hint: BSON?, on collection: DocumentCollection) async throws {
        guard let hint, hint != .null else { return }
        let indexes = try await collection.listIndexes()
        let found: Bool
        switch hint {
        case .string(let name): found = name == "$natural" || indexes.contains { $0["name"]?.stringValue == name }
        case .document(let keys):
            found = keys.keys.first == "$natural" || indexes.contains { $0["key"]?.documentValue == keys }
        default: found = false
        }
        guard found else {
            throw StoreError(code: .badValue, message: "hint provided does not correspond to an existing index")
        }
    }
}
