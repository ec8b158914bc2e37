import BSON
import DocumentStore

/// find, getMore, killCursors, aggregate, count, distinct and explain.
extension CommandDispatcher {
    static let defaultBatchSize = 101

    func find(_ arguments: CommandArguments, database: String, client: ClientConnection) async throws -> BSONDocument {
        let collection = try collection(arguments, database: database)
        var filter = try arguments.document("filter") ?? [:]
        if let variables = try arguments.document("let") {
            filter = Self.substitute(variables, in: filter, expression: false)
        }
        try await checkHint(arguments.command["hint"], on: collection)
        var limit = try arguments.integer("limit") ?? 0
        var singleBatch = arguments.bool("singleBatch")
        if limit < 0 {
            // A negative limit is the legacy form of a single batch of that many.
            limit = -limit
            singleBatch = true
        }
        let options = FindOptions(
            projection: try arguments.document("projection"), sort: try arguments.document("sort"),
            skip: try arguments.count("skip"), limit: limit, maxTime: try arguments.maxTime())
        let documents = try await collection.find(filter, options: options).toArray()
        return try firstBatch(
            documents, namespace: collection.namespace.description, batchSize: try batchSize(arguments),
            singleBatch: singleBatch, client: client)
    }

    private func batchSize(_ arguments: CommandArguments) throws(StoreError) -> Int {
        if let size = try arguments.integer("batchSize") {
            guard size >= 0 else {
                throw StoreError(
                    code: 51024, message: "BSON field 'batchSize' value must be >= 0, actual value '\(size)'")
            }
            return size
        }
        if let cursor = try arguments.document("cursor"), let size = try CommandArguments(cursor).integer("batchSize") {
            guard size >= 0 else {
                throw StoreError(
                    code: 51024, message: "BSON field 'batchSize' value must be >= 0, actual value '\(size)'")
            }
            return size
        }
        return Self.defaultBatchSize
    }

    /// The first batch and, when more is left, a cursor holding the rest.
    func firstBatch(
        _ documents: [BSONDocument], namespace: String, batchSize: Int, singleBatch: Bool, client: ClientConnection
    ) throws(StoreError) -> BSONDocument {
        let count = Self.batchCount(documents[...], batchSize: batchSize)
        let batch = Array(documents.prefix(count))
        var id: Int64 = 0
        if count < documents.count, !singleBatch {
            id = try cursors.open(
                .documents(documents.dropFirst(count)), namespace: namespace, connection: client.id)
        }
        return CommandReply.cursor(id: id, namespace: namespace, batch: batch, first: true)
    }

    /// How many documents a batch takes: `batchSize` (0 is no limit), and never more than fit in a 16 MB reply.
    static func batchCount(_ documents: ArraySlice<BSONDocument>, batchSize: Int) -> Int {
        let limit = batchSize == 0 ? documents.count : min(batchSize, documents.count)
        var bytes = 0
        for (index, document) in documents.prefix(limit).enumerated() {
            bytes += document.encodedSize
            if bytes > WireLimits.maxBsonObjectSize - 64 * 1024, index > 0 { return index }
        }
        return limit
    }

    func getMore(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        guard let id = arguments.command["getMore"]?.int64Value else {
            throw StoreError(
                code: .typeMismatch, message: "BSON field 'getMore.getMore' is the wrong type, expected type 'long'")
        }
        guard let collectionName = arguments.command["collection"]?.stringValue else {
            throw StoreError(code: 40414, message: "BSON field 'getMore.collection' is missing but a required field")
        }
        let namespace = "\(database).\(collectionName)"
        let entry = try cursors.checkOut(id, namespace: namespace)
        let batchSize = try arguments.integer("batchSize") ?? 0
        switch entry.source {
        case .documents(let documents):
            let count = Self.batchCount(documents, batchSize: batchSize)
            let rest = documents.dropFirst(count)
            if rest.isEmpty { cursors.remove(id) } else { cursors.release(id, remaining: .documents(rest)) }
            return CommandReply.cursor(
                id: rest.isEmpty ? 0 : id, namespace: namespace, batch: Array(documents.prefix(count)), first: false)
        case .changeStream(let stream):
            let wait = try arguments.maxTime() ?? .seconds(1)
            do {
                let batch = try await stream.next(limit: batchSize == 0 ? Self.defaultBatchSize : batchSize, wait: wait)
                if batch.finished { cursors.remove(id) } else { cursors.release(id, remaining: entry.source) }
                return CommandReply.cursor(
                    id: batch.finished ? 0 : id, namespace: namespace, batch: batch.events, first: false,
                    postBatchResumeToken: batch.postBatchResumeToken)
            } catch {
                cursors.remove(id)
                throw error
            }
        }
    }

    func killCursors(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        guard case .array(let ids)? = arguments.command["cursors"] else {
            throw StoreError(code: 40414, message: "BSON field 'killCursors.cursors' is missing but a required field")
        }
        var killed: [BSON] = []
        var notFound: [BSON] = []
        for value in ids {
            guard let id = value.int64Value else { continue }
            if cursors.remove(id) { killed.append(.int64(id)) } else { notFound.append(.int64(id)) }
        }
        return CommandReply.ok([
            "cursorsKilled": .array(killed), "cursorsNotFound": .array(notFound), "cursorsAlive": [],
            "cursorsUnknown": [],
        ])
    }

    func aggregate(_ arguments: CommandArguments, database: String, client: ClientConnection) async throws
        -> BSONDocument
    {
        guard let pipeline = try arguments.documents("pipeline") else {
            throw StoreError(code: 40414, message: "BSON field 'aggregate.pipeline' is missing but a required field")
        }
        if case .document(let stage)? = pipeline.first.map({ BSON.document($0) }), stage.keys.first == "$changeStream" {
            return try await openChangeStream(arguments, pipeline: pipeline, database: database, client: client)
        }
        guard arguments.command["cursor"] != nil || arguments.command["explain"] != nil else {
            throw StoreError(
                code: .failedToParse,
                message: "The 'cursor' option is required, except for aggregate with the explain argument")
        }
        let collectionName: String
        switch arguments.command["aggregate"] {
        case .string(let name)?: collectionName = name
        default:
            throw StoreError(
                code: 73,
                message: "{aggregate: 1} is answered only for $changeStream; name a collection to aggregate")
        }
        for (index, stage) in pipeline.enumerated() where stage.keys.first == "$out" || stage.keys.first == "$merge" {
            guard index == pipeline.count - 1 else {
                throw StoreError(
                    code: 40601, message: "\(stage.keys.first!) can only be the final stage in the pipeline")
            }
        }
        let collection = store.database(database).collection(collectionName)
        try await checkHint(arguments.command["hint"], on: collection)
        var stages = pipeline
        if let variables = try arguments.document("let") {
            stages = stages.map { Self.substitute(variables, in: $0, expression: $0.keys.first != "$match") }
        }
        let writes = ["$out", "$merge"].contains(stages.last?.keys.first ?? "")
        let documents =
            writes
            ? try await aggregateInto(stages, from: collection, database: database, maxTime: try arguments.maxTime())
            : try await collection.aggregate(stages, maxTime: try arguments.maxTime())
        return try firstBatch(
            documents, namespace: collection.namespace.description, batchSize: try batchSize(arguments),
            singleBatch: false, client: client)
    }

    func count(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let collection = try collection(arguments, database: database)
        let query = try arguments.document("query") ?? [:]
        try await checkHint(arguments.command["hint"], on: collection)
        let limit = abs(try arguments.integer("limit") ?? 0)
        let skip = try arguments.count("skip")
        let n =
            query.isEmpty && limit == 0 && skip == 0
            ? try await collection.estimatedDocumentCount()
            : try await collection.countDocuments(query, skip: skip, limit: limit, maxTime: try arguments.maxTime())
        return CommandReply.ok(["n": .int32(Int32(clamping: n))])
    }

    func distinct(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        let collection = try collection(arguments, database: database)
        guard let key = arguments.command["key"]?.stringValue else {
            throw StoreError(code: 40414, message: "BSON field 'distinct.key' is missing but a required field")
        }
        let values = try await collection.distinct(key, filter: try arguments.document("query") ?? [:])
        return CommandReply.ok(["values": .array(values)])
    }

    func explain(_ arguments: CommandArguments, database: String) async throws -> BSONDocument {
        guard let explained = try arguments.document("explain"), let name = explained.keys.first else {
            throw StoreError(code: .failedToParse, message: "explain takes the command to explain as a document")
        }
        let inner = CommandArguments(explained)
        let collection = try inner.collection()
        let target = store.database(database).collection(collection)
        let filter: BSONDocument
        var options = FindOptions()
        switch name {
        case "find":
            filter = try inner.document("filter") ?? [:]
            options = FindOptions(
                projection: try inner.document("projection"), sort: try inner.document("sort"),
                skip: try inner.count("skip"), limit: abs(try inner.integer("limit") ?? 0))
        case "count", "distinct": filter = try inner.document("query") ?? [:]
        case "findAndModify", "findandmodify": filter = try inner.document("query") ?? [:]
        case "update": filter = try inner.documents("updates")?.first?["q"]?.documentValue ?? [:]
        case "delete": filter = try inner.documents("deletes")?.first?["q"]?.documentValue ?? [:]
        case "aggregate":
            let pipeline = try inner.documents("pipeline") ?? []
            filter = pipeline.first?["$match"]?.documentValue ?? [:]
        default:
            throw StoreError(code: 59, message: "explain of '\(name)' is not supported")
        }
        let plan = try await target.explain(filter, options: options)
        var winningPlan: BSONDocument = ["stage": .string(plan.stage)]
        if let index = plan.indexName { winningPlan["indexName"] = .string(index) }
        return CommandReply.ok([
            "queryPlanner": [
                "namespace": .string(target.namespace.description), "parsedQuery": .document(filter),
                "winningPlan": .document(winningPlan), "rejectedPlans": [],
            ],
            "executionStats": [
                "nReturned": .int64(Int64(plan.returned)), "totalKeysExamined": .int64(Int64(plan.keysExamined)),
                "totalDocsExamined": .int64(Int64(plan.documentsExamined)), "executionSuccess": .bool(true),
            ],
            "serverInfo": ["host": .string(host), "version": .string(Self.version)],
            "command": .document(explained),
        ])
    }

    /// The filter with `$$name` references to `let` variables replaced by their values, as literals; outside an
    /// expression (a query filter's fields) only `$expr` holds references.
    static func substitute(_ variables: BSONDocument, in document: BSONDocument, expression: Bool) -> BSONDocument {
        BSONDocument(
            document.map { key, value in
                (key, substitute(variables, in: value, expression: expression || key == "$expr"))
            })
    }

    private static func substitute(_ variables: BSONDocument, in value: BSON, expression: Bool) -> BSON {
        switch value {
        case .string(let text) where expression && text.hasPrefix("$$"):
            let name = String(text.dropFirst(2).prefix { $0 != "." })
            guard let bound = variables[name] else { return value }
            let rest = text.dropFirst(2 + name.count)
            guard rest.isEmpty else {
                return bound.documentValue?.value(atPath: String(rest.dropFirst())).map { ["$literal": $0] } ?? .null
            }
            return ["$literal": bound]
        case .document(let document): return .document(substitute(variables, in: document, expression: expression))
        case .array(let values): return .array(values.map { substitute(variables, in: $0, expression: expression) })
        default: return value
        }
    }
}
