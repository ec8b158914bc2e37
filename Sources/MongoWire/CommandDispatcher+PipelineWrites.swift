import BSON
import DocumentStore

/// Pipeline-style updates (`update` with `u: [stages]`, findAndModify with `update: [stages]`) and the `$out` and
/// `$merge` stages. The store's aggregation stages compute each new document; the reads and writes of one statement
/// run in one store transaction (the session's, inside one), so a statement is applied whole or not at all.
extension CommandDispatcher {
    /// The stages MongoDB allows in an update pipeline.
    static let updateStages: Set<String> = ["$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith"]

    /// What one update statement did.
    struct StatementResult {
        var matched = 0
        var modified = 0
        var upsertedId: BSON?
    }

    func updatePipeline(_ value: [BSON]) throws(StoreError) -> Pipeline {
        var stages: [BSONDocument] = []
        for element in value {
            guard let stage = element.documentValue, let name = stage.keys.first else {
                throw StoreError(code: .failedToParse, message: "an update pipeline holds stage documents")
            }
            guard Self.updateStages.contains(name) else {
                throw StoreError(code: .invalidOptions, message: "\(name) is not allowed to be used within an update")
            }
            stages.append(stage)
        }
        return try Pipeline(stages)
    }

    /// Runs `body` in a store transaction of its own, unless the caller already runs in one.
    func atomically<T>(_ body: () async throws -> T) async throws -> T {
        if store.isInTransaction { return try await body() }
        let transaction = try await store.startTransaction(lifetime: transactions.lifetime)
        do {
            let result = try await transaction.run(body)
            try await transaction.commit()
            return result
        } catch {
            await transaction.abort()
            throw error
        }
    }

    /// The pipeline's output for one document, which keeps its `_id`; `variables` are what `$$name` reads.
    static func transformed(
        _ document: BSONDocument, by pipeline: Pipeline, variables: [String: BSON] = [:]
    ) throws(StoreError) -> BSONDocument {
        let output = try pipeline.run([document], source: NoCollections(), variables: variables)
        guard output.count == 1, var result = output.first else {
            throw StoreError(code: .badValue, message: "an update pipeline must yield one document")
        }
        if result["_id"] == nil, let id = document["_id"] {
            var withId: BSONDocument = ["_id": id]
            for (key, value) in result { withId.append(key, value) }
            result = withId
        }
        guard document["_id"] == nil || result["_id"] == document["_id"] else {
            throw StoreError(
                code: .immutableField,
                message: "Performing an update on the path '_id' would modify the immutable field '_id'")
        }
        return result
    }

    /// The operators that turn `old` into `new` field by field (so the change event is an update with its
    /// description); nil when nothing changes.
    static func operators(from old: BSONDocument, to new: BSONDocument) -> BSONDocument? {
        var set: BSONDocument = [:]
        var unset: BSONDocument = [:]
        for (key, value) in new where old[key] != value { set[key] = value }
        for key in old.keys where new[key] == nil { unset[key] = "" }
        var operators: BSONDocument = [:]
        if !set.isEmpty { operators["$set"] = .document(set) }
        if !unset.isEmpty { operators["$unset"] = .document(unset) }
        return operators.isEmpty ? nil : operators
    }

    /// An upsert's first document: the filter's equality fields, as MongoDB seeds it.
    static func upsertSeed(_ filter: BSONDocument) -> BSONDocument {
        var seed: BSONDocument = [:]
        for (key, value) in filter where !key.hasPrefix("$") && !key.contains(".") {
            if let document = value.documentValue, document.keys.first?.hasPrefix("$") == true { continue }
            seed[key] = value
        }
        return seed
    }

    static func withId(_ document: BSONDocument) -> BSONDocument {
        guard document["_id"] == nil else { return document }
        var withId: BSONDocument = ["_id": .objectId(ObjectId())]
        for (key, value) in document { withId.append(key, value) }
        return withId
    }

    func pipelineUpdate(
        _ filter: BSONDocument, _ stages: [BSON], upsert: Bool, multi: Bool, on collection: DocumentCollection
    ) async throws -> StatementResult {
        let pipeline = try updatePipeline(stages)
        return try await atomically {
            let matches = try await collection.find(filter, options: FindOptions(limit: multi ? 0 : 1)).toArray()
            guard !matches.isEmpty else {
                guard upsert else { return StatementResult() }
                let document = Self.withId(try Self.transformed(Self.upsertSeed(filter), by: pipeline))
                _ = try await collection.insertOne(document)
                return StatementResult(upsertedId: document["_id"])
            }
            var result = StatementResult(matched: matches.count)
            for document in matches {
                guard let id = document["_id"],
                    let operators = Self.operators(from: document, to: try Self.transformed(document, by: pipeline))
                else { continue }
                result.modified += try await collection.updateOne(["_id": id], operators).modifiedCount
            }
            return result
        }
    }

    /// findAndModify with a pipeline: the reply's `lastErrorObject` and `value`.
    func pipelineFindAndModify(
        _ filter: BSONDocument, _ stages: [BSON], sort: BSONDocument?, projection: BSONDocument?, upsert: Bool,
        returnNew: Bool, on collection: DocumentCollection
    ) async throws -> BSONDocument {
        let pipeline = try updatePipeline(stages)
        let (lastError, value): (BSONDocument, BSONDocument?) = try await atomically {
            if let existing = try await collection.findOne(filter, options: FindOptions(sort: sort)) {
                let updated = try Self.transformed(existing, by: pipeline)
                if let id = existing["_id"], let operators = Self.operators(from: existing, to: updated) {
                    _ = try await collection.updateOne(["_id": id], operators)
                }
                return (["n": .int32(1), "updatedExisting": .bool(true)], returnNew ? updated : existing)
            }
            guard upsert else { return (["n": .int32(0), "updatedExisting": .bool(false)], nil) }
            let document = Self.withId(try Self.transformed(Self.upsertSeed(filter), by: pipeline))
            _ = try await collection.insertOne(document)
            return (
                ["n": .int32(1), "updatedExisting": .bool(false), "upserted": document["_id"] ?? .null],
                returnNew ? document : nil
            )
        }
        var shown = value
        if let projection, let document = value {
            shown = try Pipeline([["$project": .document(projection)]]).run([document], source: NoCollections()).first
        }
        return CommandReply.ok(["lastErrorObject": .document(lastError), "value": shown.map { .document($0) } ?? .null])
    }

    /// `$out` or `$merge` ending `pipeline`: runs the stages before it and writes their output; the reply is an
    /// empty cursor, as MongoDB's.
    func aggregateInto(
        _ pipeline: [BSONDocument], from collection: DocumentCollection, database: String, maxTime: Duration?
    ) async throws -> [BSONDocument] {
        let last = pipeline[pipeline.count - 1]
        let name = last.keys.first ?? ""
        let output = try await collection.aggregate(Array(pipeline.dropLast()), maxTime: maxTime)
        let specification = last.values[0]
        switch name {
        case "$out":
            let target = try outputCollection(specification, key: nil, database: database, stage: name)
            try await atomically {
                let exists = try await store.database(target.database.name).listCollectionNames().contains(target.name)
                if exists { _ = try await target.deleteMany([:]) }
                if !output.isEmpty {
                    _ = try await target.insertMany(output.map(Self.withId))
                } else if !exists {
                    try await store.database(target.database.name).createCollection(target.name)
                }
            }
        default:
            try await merge(output, specification, database: database)
        }
        return []
    }

    private func outputCollection(_ value: BSON, key: String?, database: String, stage: String) throws(StoreError)
        -> DocumentCollection
    {
        switch value {
        case .string(let name): return store.database(database).collection(name)
        case .document(let specification):
            let target = key.flatMap { specification[$0] } ?? value
            if case .string(let name) = target { return store.database(database).collection(name) }
            guard let namespace = target.documentValue, let name = namespace["coll"]?.stringValue else { break }
            return store.database(namespace["db"]?.stringValue ?? database).collection(name)
        default: break
        }
        throw StoreError(code: .failedToParse, message: "\(stage) takes a collection name or {db, coll}")
    }

    private func merge(_ output: [BSONDocument], _ value: BSON, database: String) async throws {
        let specification = value.documentValue ?? ["into": value]
        let target = try outputCollection(.document(specification), key: "into", database: database, stage: "$merge")
        let on: [String]
        switch specification["on"] {
        case nil: on = ["_id"]
        case .string(let field)?: on = [field]
        case .array(let fields)?: on = fields.compactMap(\.stringValue)
        default: throw StoreError(code: .failedToParse, message: "$merge's 'on' takes a field name or an array of them")
        }
        let whenMatched = specification["whenMatched"] ?? "merge"
        let whenNotMatched = specification["whenNotMatched"]?.stringValue ?? "insert"
        // A pipeline updates the matched document as an update pipeline would, with `$$new` (or `let`'s
        // variables, evaluated on the incoming document) reading the incoming one.
        let matchedMode: String
        var matchedPipeline: Pipeline?
        switch whenMatched {
        case .string(let mode) where ["merge", "replace", "keepExisting", "fail"].contains(mode): matchedMode = mode
        case .array(let stages):
            matchedMode = "pipeline"
            matchedPipeline = try updatePipeline(stages)
        default:
            throw StoreError(
                code: .invalidOptions,
                message: "$merge's whenMatched takes merge, replace, keepExisting, fail or an update pipeline")
        }
        var bindings: [(name: String, expression: Expression)] = []
        switch specification["let"] {
        case nil: break
        case .document(let variables)?:
            guard matchedPipeline != nil else {
                throw StoreError(code: 51199, message: "$merge's 'let' takes effect only with a whenMatched pipeline")
            }
            for (name, value) in variables { bindings.append((name, try Expression(value))) }
        default: throw StoreError(code: .failedToParse, message: "$merge's 'let' takes a document of variables")
        }
        guard ["insert", "discard", "fail"].contains(whenNotMatched) else {
            throw StoreError(code: .invalidOptions, message: "$merge's whenNotMatched takes insert, discard or fail")
        }
        try await atomically {
            for result in output {
                let document = Self.withId(result)
                var key: BSONDocument = [:]
                for field in on {
                    guard let value = document.value(atPath: field), value != .null, value.arrayValue == nil else {
                        throw StoreError(
                            code: 51132,
                            message: "$merge write error: 'on' field '\(field)' cannot be missing, null or an array")
                    }
                    key[field] = value
                }
                guard let existing = try await target.findOne(key) else {
                    switch whenNotMatched {
                    case "insert": _ = try await target.insertOne(document)
                    case "fail":
                        throw StoreError(
                            code: 13113, message: "$merge could not find a matching document in the target collection")
                    default: break
                    }
                    continue
                }
                guard let id = existing["_id"] else { continue }
                if let matchedPipeline {
                    var variables: [String: BSON] = [:]
                    if bindings.isEmpty { variables["new"] = .document(document) }
                    for binding in bindings { variables[binding.name] = try binding.expression.evaluate(document) }
                    let updated = try Self.transformed(existing, by: matchedPipeline, variables: variables)
                    if let operators = Self.operators(from: existing, to: updated) {
                        _ = try await target.updateOne(["_id": id], operators)
                    }
                    continue
                }
                switch matchedMode {
                case "replace":
                    var replacement = document
                    replacement["_id"] = id
                    _ = try await target.replaceOne(["_id": id], replacement)
                case "merge":
                    var fields = document
                    fields["_id"] = nil
                    if !fields.isEmpty { _ = try await target.updateOne(["_id": id], ["$set": .document(fields)]) }
                case "fail":
                    throw StoreError(
                        code: .duplicateKey, message: "$merge failed: a document matching \(key) exists in the target")
                default: break
                }
            }
        }
    }
}

/// An update pipeline's stages read no other collection.
private struct NoCollections: PipelineSource {
    func documents(inCollection name: String) throws(StoreError) -> [BSONDocument] {
        throw StoreError(code: .invalidOptions, message: "an update pipeline cannot read collection '\(name)'")
    }
}
