import BSON

/// A collection of documents (MongoDB's `Collection`, renamed to stay clear of Swift's protocol).
/// Writing to a missing collection creates it.
public struct DocumentCollection: Sendable {
    public let database: Database
    public let name: String

    public var namespace: Namespace { Namespace(database: database.name, collection: name) }
    /// The store's worker, seen from this collection: its writes move `writeVersion`.
    var worker: CollectionWorker {
        CollectionWorker(store: database.store, namespace: namespace, access: database.access)
    }
    /// What reads and writes are held to (`Database.access`).
    package var access: (any DocumentAccess)? { database.access }

    /// Moves after every write to this collection (see `CollectionWriteVersion`).
    package var writeVersion: CollectionWriteVersion { database.store.writeVersions.version(of: namespace) }

    // MARK: Reading

    public func find(_ filter: BSONDocument = [:], options: FindOptions = .init()) -> FindCursor {
        FindCursor(collection: self, filter: filter, options: options)
    }

    /// Runs on its caller's executor, as the read itself does (`StoreWorker.query`).
    nonisolated(nonsending) func findAll(_ filter: BSONDocument, options: FindOptions) async throws
        -> [BSONDocument]
    {
        let namespace = self.namespace
        let start = ContinuousClock.now
        var query = filter
        var redaction = DocumentRedaction.none
        if let access {
            query = filter.restricted(to: try access.readFilter(namespace))
            redaction = access.redaction(namespace)
        }
        let restricted = query
        guard let access, redaction != .none else {
            // `find` begins the read transaction itself when its plan takes more than one statement.
            return try await worker.query(deferringTransaction: true) { view throws(StoreError) in
                try view.limited(to: options.maxTime, from: start).find(namespace, filter: restricted, options: options)
            }
        }
        // Redacted before the projection, which must not see hidden fields; where redaction can hide documents,
        // the skip and limit count what is left.
        var unprojected = options
        unprojected.projection = nil
        if redaction == .documents {
            unprojected.skip = 0
            unprojected.limit = 0
        }
        let read = unprojected
        let documents = try await worker.query(deferringTransaction: true) { view throws(StoreError) in
            try view.limited(to: options.maxTime, from: start).find(namespace, filter: restricted, options: read)
        }
        var visible = documents.compactMap { access.redact($0, in: namespace) }
        if redaction == .documents {
            visible = Array(visible.dropFirst(options.skip).prefix(options.limit > 0 ? options.limit : Int.max))
        }
        guard let specification = options.projection, !specification.isEmpty else { return visible }
        let projection = try Projection(specification)
        return try visible.map { document throws(StoreError) in try projection.apply(to: document) }
    }

    public func findOne(_ filter: BSONDocument = [:], options: FindOptions = .init()) async throws -> BSONDocument? {
        var options = options
        options.limit = 1
        return try await findAll(filter, options: options).first
    }

    /// How the query would run and what it examined: `COLLSCAN`, `IDHACK` or `IXSCAN` with the index.
    public func explain(_ filter: BSONDocument = [:], options: FindOptions = .init()) async throws -> QueryExplanation {
        let namespace = self.namespace
        return try await worker.query { view throws(StoreError) in
            try view.explain(namespace, filter: filter, options: options)
        }
    }

    /// `maxTime` is MongoDB's `maxTimeMS` (see `FindOptions.maxTime`).
    public func countDocuments(
        _ filter: BSONDocument = [:], skip: Int = 0, limit: Int = 0, maxTime: Duration? = nil
    ) async throws -> Int {
        let namespace = self.namespace
        let start = ContinuousClock.now
        var filter = filter
        if let access {
            filter = filter.restricted(to: try access.readFilter(namespace))
            if access.redaction(namespace) == .documents {
                let visible = try await findAll(filter, options: FindOptions(projection: ["_id": 1], maxTime: maxTime))
                return max(0, min(visible.count - skip, limit > 0 ? limit : Int.max))
            }
        }
        let query = filter
        return try await worker.query { view throws(StoreError) in
            try view.limited(to: maxTime, from: start).count(namespace, filter: query, skip: skip, limit: limit)
        }
    }

    public func estimatedDocumentCount() async throws -> Int {
        if access != nil { return try await countDocuments() }
        let namespace = self.namespace
        return try await worker.query { view throws(StoreError) in try view.estimatedCount(namespace) }
    }

    /// Distinct values of `field` among the matches, array elements counted one by one.
    public func distinct(_ field: String, filter: BSONDocument = [:]) async throws -> [BSON] {
        let namespace = self.namespace
        if access != nil {
            // What the reader may see of each match, then its distinct values as the pipeline counts them.
            let stages: [BSONDocument] = [
                ["$unwind": ["path": .string("$" + field), "preserveNullAndEmptyArrays": false]],
                ["$group": ["_id": .string("$" + field)]],
            ]
            return try await aggregate([["$match": .document(filter)]] + stages).compactMap { $0["_id"] }
        }
        return try await worker.query { view throws(StoreError) in
            try view.distinct(namespace, field: field, filter: filter)
        }
    }

    /// Runs an aggregation pipeline; `$lookup` reads the other collections of this database. `maxTime` is
    /// MongoDB's `maxTimeMS` (see `FindOptions.maxTime`).
    ///
    /// With `access`, the pipeline reads what the reader may see of this collection, and stages that reach other
    /// namespaces (`$lookup`, `$graphLookup`, `$unionWith`, `$out`, `$merge`) are refused.
    public func aggregate(_ pipeline: [BSONDocument], maxTime: Duration? = nil) async throws -> [BSONDocument] {
        let namespace = self.namespace
        let start = ContinuousClock.now
        let access = self.access
        if access != nil { try Self.refuseOtherNamespaces(pipeline) }
        return try await worker.query { view throws(StoreError) in
            try view.limited(to: maxTime, from: start).aggregate(namespace, pipeline: pipeline, access: access)
        }
    }

    /// The stages through which a pipeline would read or write beyond the collection its access governs.
    static let otherNamespaceStages: Set<String> = ["$lookup", "$graphLookup", "$unionWith", "$out", "$merge"]

    private static func refuseOtherNamespaces(_ pipeline: [BSONDocument]) throws(StoreError) {
        for stage in pipeline {
            guard let name = stage.keys.first(where: otherNamespaceStages.contains) else { continue }
            throw StoreError(
                code: .unauthorized,
                message: "\(name) is not permitted under data access rules: it would reach another collection unchecked"
            )
        }
        for stage in pipeline {
            // A $facet's sub-pipelines are pipelines too.
            guard case .document(let facets)? = stage["$facet"] else { continue }
            for (_, value) in facets {
                guard case .array(let stages) = value else { continue }
                try refuseOtherNamespaces(stages.compactMap(\.documentValue))
            }
        }
    }

    // MARK: Writing

    /// Inserts a document, adding an ObjectId `_id` first when it has none.
    @discardableResult
    public func insertOne(_ document: BSONDocument) async throws -> InsertOneResult {
        let namespace = self.namespace
        let document = StoreCore.withId(document)
        // Encoded here, off the store's thread; a failure is reported where storing it would fail.
        let prepared = Result { () throws(StoreError) in try PreparedDocument(document, in: namespace) }
        try await worker.write { core throws(StoreError) in
            try core.insertDocument(try core.collectionCreatingIfNeeded(namespace), try prepared.get())
        }
        return InsertOneResult(insertedId: document["_id"]!)
    }

    /// Inserts a document (adding an ObjectId `_id` first when it has none) with the next write this task makes
    /// through the store, in its transaction, when the task carries inserts (`CarriedInserts`); else at once.
    /// `committed` runs once it is committed.
    package func insertWithNextWrite(_ document: BSONDocument, committed: @escaping @Sendable () -> Void)
        async throws
    {
        let document = StoreCore.withId(document)
        if let carrier = CarriedInserts.current, access == nil,
            carrier.add(
                CarriedInserts.Insert(
                    store: database.store, prepared: try PreparedDocument(document, in: namespace),
                    namespace: namespace, committed: committed))
        {
            return
        }
        try await insertOne(document)
        committed()
    }

    /// Inserts documents in one commit. Ordered (the default) stops at the first failure, keeping the
    /// documents before it; unordered inserts every document it can. Failures throw `BulkWriteError`.
    @discardableResult
    public func insertMany(_ documents: [BSONDocument], ordered: Bool = true) async throws -> InsertManyResult {
        let namespace = self.namespace
        // Made with the labels `StoreCore.insert` takes: an array of unlabeled tuples would be converted to it
        // element by element, through the runtime's generic casts.
        var prepared: [(document: BSONDocument, prepared: Result<PreparedDocument, StoreError>)] = []
        prepared.reserveCapacity(documents.count)
        for document in documents {
            let document = StoreCore.withId(document)
            prepared.append(
                (document, Result { () throws(StoreError) in try PreparedDocument(document, in: namespace) }))
        }
        let documents = prepared
        let outcome = try await worker.write { core throws(StoreError) in
            try core.insert(namespace, documents, ordered: ordered)
        }
        guard outcome.errors.isEmpty else {
            var result = BulkWriteResult()
            result.insertedIds = outcome.result.insertedIds
            result.insertedCount = outcome.result.insertedCount
            throw BulkWriteError(writeErrors: outcome.errors, result: result)
        }
        return outcome.result
    }

    /// Inserts documents encoded already, in one commit, unordered: every document it can. Failures (a duplicate
    /// `_id`, a document over 16 MB) throw `BulkWriteError`. In a collection with no index in an unlogged database
    /// (`local`), a document goes in as its bytes, undecoded.
    package func insertMany(encoded documents: [EncodedDocument]) async throws {
        guard !documents.isEmpty else { return }
        let namespace = self.namespace
        let errors = try await worker.write { core throws(StoreError) in
            try core.insert(namespace, encoded: documents)
        }
        guard errors.isEmpty else {
            var result = BulkWriteResult()
            result.insertedCount = documents.count - errors.count
            throw BulkWriteError(writeErrors: errors, result: result)
        }
    }

    @discardableResult
    public func updateOne(
        _ filter: BSONDocument, _ update: BSONDocument, upsert: Bool = false, arrayFilters: [BSONDocument] = []
    ) async throws -> UpdateResult {
        try await performUpdate(
            filter, update, multi: false, upsert: upsert, arrayFilters: arrayFilters, replacement: false)
    }

    /// Updates every match atomically: when one document fails, none changes.
    @discardableResult
    public func updateMany(
        _ filter: BSONDocument, _ update: BSONDocument, upsert: Bool = false, arrayFilters: [BSONDocument] = []
    ) async throws -> UpdateResult {
        try await performUpdate(
            filter, update, multi: true, upsert: upsert, arrayFilters: arrayFilters, replacement: false)
    }

    @discardableResult
    public func replaceOne(_ filter: BSONDocument, _ replacement: BSONDocument, upsert: Bool = false) async throws
        -> UpdateResult
    {
        try await performUpdate(filter, replacement, multi: false, upsert: upsert, arrayFilters: [], replacement: true)
    }

    private func performUpdate(
        _ filter: BSONDocument, _ update: BSONDocument, multi: Bool, upsert: Bool, arrayFilters: [BSONDocument],
        replacement: Bool
    ) async throws -> UpdateResult {
        let namespace = self.namespace
        let filter = try writeRestricted(filter)
        return try await worker.write { core throws(StoreError) in
            try core.update(
                namespace, filter: filter, update: update, multi: multi, upsert: upsert, arrayFilters: arrayFilters,
                replacement: replacement)
        }
    }

    @discardableResult
    public func deleteOne(_ filter: BSONDocument) async throws -> DeleteResult {
        let namespace = self.namespace
        let filter = try writeRestricted(filter)
        return try await worker.write { core throws(StoreError) in
            try core.delete(namespace, filter: filter, multi: false)
        }
    }

    @discardableResult
    public func deleteMany(_ filter: BSONDocument) async throws -> DeleteResult {
        let namespace = self.namespace
        let filter = try writeRestricted(filter)
        return try await worker.write { core throws(StoreError) in
            try core.delete(namespace, filter: filter, multi: true)
        }
    }

    public func findOneAndUpdate(
        _ filter: BSONDocument, _ update: BSONDocument, options: FindOneAndModifyOptions = .init()
    ) async throws -> BSONDocument? {
        try await findOneAndModify(filter, .update(update, arrayFilters: options.arrayFilters), options: options)
    }

    public func findOneAndReplace(
        _ filter: BSONDocument, _ replacement: BSONDocument, options: FindOneAndModifyOptions = .init()
    ) async throws -> BSONDocument? {
        try await findOneAndModify(filter, .replace(replacement), options: options)
    }

    public func findOneAndDelete(_ filter: BSONDocument, sort: BSONDocument? = nil, projection: BSONDocument? = nil)
        async throws -> BSONDocument?
    {
        try await findOneAndModify(
            filter, .delete, options: FindOneAndModifyOptions(sort: sort, projection: projection))
    }

    private func findOneAndModify(
        _ filter: BSONDocument, _ modification: StoreCore.Modification, options: FindOneAndModifyOptions
    ) async throws -> BSONDocument? {
        let namespace = self.namespace
        let filter = try writeRestricted(filter)
        guard let access else {
            return try await worker.write { core throws(StoreError) in
                try core.findOneAndModify(namespace, filter: filter, modification: modification, options: options)
            }
        }
        // The document answered is what the writer may read of it, redacted before the projection.
        var unprojected = options
        unprojected.projection = nil
        let read = unprojected
        let document = try await worker.write { core throws(StoreError) in
            try core.findOneAndModify(namespace, filter: filter, modification: modification, options: read)
        }
        guard let document, let visible = access.redact(document, in: namespace) else { return nil }
        guard let specification = options.projection, !specification.isEmpty else { return visible }
        return try Projection(specification).apply(to: visible)
    }

    /// `filter` restricted to what `access` lets updates and deletes match.
    private func writeRestricted(_ filter: BSONDocument) throws(StoreError) -> BSONDocument {
        guard let access else { return filter }
        return filter.restricted(to: try access.writeFilter(namespace))
    }

    /// Runs mixed writes in one commit; ordered stops at the first failure. Failures throw
    /// `BulkWriteError` carrying what succeeded.
    @discardableResult
    public func bulkWrite(_ models: [WriteModel], ordered: Bool = true) async throws -> BulkWriteResult {
        let namespace = self.namespace
        let models = try models.map { model throws(StoreError) -> WriteModel in
            switch model {
            case .insertOne(let document): return .insertOne(StoreCore.withId(document))
            case .updateOne(let filter, let update, let upsert, let arrayFilters):
                return .updateOne(
                    filter: try writeRestricted(filter), update: update, upsert: upsert, arrayFilters: arrayFilters)
            case .updateMany(let filter, let update, let upsert, let arrayFilters):
                return .updateMany(
                    filter: try writeRestricted(filter), update: update, upsert: upsert, arrayFilters: arrayFilters)
            case .replaceOne(let filter, let replacement, let upsert):
                return .replaceOne(filter: try writeRestricted(filter), replacement: replacement, upsert: upsert)
            case .deleteOne(let filter): return .deleteOne(filter: try writeRestricted(filter))
            case .deleteMany(let filter): return .deleteMany(filter: try writeRestricted(filter))
            }
        }
        let outcome = try await worker.write { core throws(StoreError) in
            try core.bulkWrite(namespace, models, ordered: ordered)
        }
        guard outcome.errors.isEmpty else { throw BulkWriteError(writeErrors: outcome.errors, result: outcome.result) }
        return outcome.result
    }

    // MARK: Collection and indexes

    /// Renames this collection (a `rename` event); with `dropTarget` an existing target is dropped first.
    @discardableResult
    public func rename(to newName: String, dropTarget: Bool = false) async throws -> DocumentCollection {
        try refuseUnderAccess("rename")
        let (source, target) = (namespace, Namespace(database: database.name, collection: newName))
        defer { database.store.writeVersions.advance(target) }
        try await worker.write { core throws(StoreError) in try core.rename(source, to: target, dropTarget: dropTarget)
        }
        return database.collection(newName)
    }

    /// Whether later writes record pre- and post-images for change streams (MongoDB's `collMod` with
    /// `changeStreamPreAndPostImages`); fails with NamespaceNotFound when the collection does not exist.
    package func setChangeStreamPreAndPostImages(_ enabled: Bool) async throws {
        try refuseUnderAccess("collMod")
        let namespace = self.namespace
        try await worker.write { core throws(StoreError) in
            try core.setChangeStreamPreAndPostImages(namespace, enabled: enabled)
        }
    }

    /// Drops the collection with its indexes (a `drop` event); false when it did not exist.
    @discardableResult
    public func drop() async throws -> Bool {
        try refuseUnderAccess("drop")
        let namespace = self.namespace
        return try await worker.write { core throws(StoreError) in try core.dropCollection(namespace) }
    }

    /// Creates an index (`{"name": 1}`, compound `{"a": 1, "b": -1}`); returns its name. Building a unique
    /// index over duplicates fails with E11000.
    @discardableResult
    public func createIndex(_ keys: BSONDocument, unique: Bool = false, name: String? = nil) async throws -> String {
        try refuseUnderAccess("createIndex")
        let namespace = self.namespace
        return try await worker.write { core throws(StoreError) in
            try core.createIndex(namespace, keys: keys, unique: unique, name: name)
        }
    }

    /// `[{v, key, name, unique?}]`, the `_id_` index first.
    public func listIndexes() async throws -> [BSONDocument] {
        let namespace = self.namespace
        return try await worker.query { view throws(StoreError) in try view.listIndexes(namespace) }
    }

    public func dropIndex(_ name: String) async throws {
        try refuseUnderAccess("dropIndex")
        let namespace = self.namespace
        try await worker.write { core throws(StoreError) in try core.dropIndex(namespace, name: name) }
    }

    /// Data access rules govern documents; a collection's own shape is the app's, changed by system code only.
    private func refuseUnderAccess(_ operation: String) throws(StoreError) {
        guard access != nil else { return }
        throw StoreError(code: .unauthorized, message: "\(operation) is not permitted under data access rules")
    }

    /// Watches this collection; dropping or renaming it invalidates the stream.
    public func watch(_ pipeline: [BSONDocument] = [], options: ChangeStreamOptions = .init()) async throws
        -> ChangeStream
    {
        try await database.store.watch(scope: .collection(namespace), pipeline: pipeline, options: options)
    }
}
