import BSON

/// What a read needs: an engine and the catalog that matches the data it sees. On the store's thread
/// that is the core's engine and catalog; off it, a pooled read connection in its own read transaction
/// and the catalog published with the last commit (`ReadConnectionPool`).
struct StoreView {
    let engine: any StorageEngine
    let catalog: [Namespace: StoreCore.CollectionState]
    /// A read connection whose read transaction was deferred (`ReadConnectionPool.read`): begun by
    /// `beginDeferredTransaction()` before a second statement. Nil when the view's statements are already
    /// in a transaction or between commits on the store's thread.
    var deferredTransaction: ReadConnection? = nil
    /// When the read must give up (`maxTimeMS`); nil: never.
    var deadline: ReadDeadline? = nil

    /// The view with a read's time budget, counted from `start`.
    func limited(to maxTime: Duration?, from start: ContinuousClock.Instant) -> StoreView {
        guard let maxTime else { return self }
        var view = self
        view.deadline = ReadDeadline(instant: start + maxTime)
        return view
    }

    func checkDeadline() throws(StoreError) {
        try deadline?.check()
    }

    /// Before a read that runs more than one statement, so that they all see the same commit.
    func beginDeferredTransaction() throws(StoreError) {
        try deferredTransaction?.beginTransaction()
    }

    func collection(_ namespace: Namespace) -> StoreCore.CollectionState? { catalog[namespace] }

    // MARK: Catalog

    func listDatabaseNames() -> [String] {
        Set(catalog.keys.map(\.database)).sorted()
    }

    func listCollectionNames(database: String) -> [String] {
        catalog.keys.filter { $0.database == database }.map(\.collection).sorted()
    }

    func listIndexes(_ namespace: Namespace) throws(StoreError) -> [BSONDocument] {
        guard let state = collection(namespace) else { throw .namespaceNotFound("ns does not exist: \(namespace)") }
        return [["v": 2, "key": ["_id": 1], "name": "_id_"]] + state.indexes.map(\.specification)
    }

    // MARK: Queries

    func find(_ namespace: Namespace, filter: BSONDocument, options: FindOptions) throws(StoreError) -> [BSONDocument] {
        var statistics = ScanStatistics()
        return try findMatches(namespace, filter: filter, options: options, statistics: &statistics)
    }

    func findMatches(
        _ namespace: Namespace, filter: BSONDocument, options: FindOptions, statistics: inout ScanStatistics
    ) throws(StoreError) -> [BSONDocument] {
        guard options.skip >= 0 else {
            throw .badValue("skip value must be non-negative, but received: \(options.skip)")
        }
        let limit = options.limit == 0 ? nil : abs(options.limit)
        let projection = try options.projection.flatMap { p throws(StoreError) in p.isEmpty ? nil : try Projection(p) }
        let sort = try options.sort.flatMap { s throws(StoreError) in s.isEmpty ? nil : try SortSpecification(s) }
        guard let state = collection(namespace) else { return [] }
        let (matcher, plan) = try state.compile(filter)
        // A read whose transaction was deferred needs one for a plan of several statements.
        if !plan.isSingleStatement { try beginDeferredTransaction() }
        guard let sort else {
            // In scan order, each match is skipped or projected as the scan meets it: a find holds its page,
            // projected, never every match of a large collection (a capped log read its 10,000 entries whole).
            var skipped = 0
            var page: [BSONDocument] = []
            try scanCandidates(state, plan: plan, statistics: &statistics) { document throws(StoreError) in
                guard let match = try matcher.match(document) else { return true }
                guard skipped >= options.skip else {
                    skipped += 1
                    return true
                }
                page.append(try projection?.apply(to: document, match: match) ?? document)
                return limit.map { page.count < $0 } ?? true
            }
            return page
        }
        // Sorted with a limit, only the best `skip + limit` matches so far are kept (pruned whenever twice that
        // many are held): the store sorts in memory, and a small page of a large queue held all of it.
        let wanted = limit.map { $0 + options.skip }
        let pruneAt = wanted.map { 2 * max($0, 64) }
        var kept: [SortCandidate] = []
        var scanned = 0
        try scanCandidates(state, plan: plan, statistics: &statistics) { document throws(StoreError) in
            guard let match = try matcher.match(document) else { return true }
            kept.append(SortCandidate(offset: scanned, document: document, match: match))
            scanned += 1
            if let pruneAt, let wanted, kept.count >= pruneAt { kept = Self.best(kept, by: sort, count: wanted) }
            return true
        }
        var page = Self.best(kept, by: sort, count: wanted).dropFirst(options.skip)[...]
        if let limit { page = page.prefix(limit) }
        guard let projection else { return page.map(\.document) }
        var results: [BSONDocument] = []
        for candidate in page { results.append(try projection.apply(to: candidate.document, match: candidate.match)) }
        return results
    }

    /// A match kept for a sort, with its place in the scan (ties keep scan order).
    private struct SortCandidate {
        var offset: Int
        var document: BSONDocument
        var match: QueryMatch
    }

    /// The first `count` of `candidates` in sort order (all of them when nil), ties in scan order.
    private static func best(_ candidates: [SortCandidate], by sort: SortSpecification, count: Int?)
        -> [SortCandidate]
    {
        let ordered = candidates.sorted { lhs, rhs in
            let order = sort.compare(lhs.document, rhs.document)
            return order != 0 ? order < 0 : lhs.offset < rhs.offset
        }
        guard let count, ordered.count > count else { return ordered }
        return Array(ordered.prefix(count))
    }

    /// A stable sort: documents that compare equal keep their scan order.
    static func sorted(
        _ matches: [(document: BSONDocument, match: QueryMatch)], by sort: SortSpecification
    ) -> [(document: BSONDocument, match: QueryMatch)] {
        matches.enumerated().sorted { lhs, rhs in
            let order = sort.compare(lhs.element.document, rhs.element.document)
            return order != 0 ? order < 0 : lhs.offset < rhs.offset
        }.map(\.element)
    }

    func explain(_ namespace: Namespace, filter: BSONDocument, options: FindOptions) throws(StoreError)
        -> QueryExplanation
    {
        var statistics = ScanStatistics()
        let results = try findMatches(namespace, filter: filter, options: options, statistics: &statistics)
        let plan =
            try collection(namespace).map { state throws(StoreError) in try state.compile(filter).plan }
            ?? .collectionScan
        return QueryExplanation(
            stage: plan.stage, indexName: plan.indexName, keysExamined: statistics.keysExamined,
            documentsExamined: statistics.documentsExamined, returned: results.count)
    }

    /// Counts the matches as the scan meets them, keeping none: a count of a large collection costs one document's
    /// memory at a time, not the whole collection's.
    func count(_ namespace: Namespace, filter: BSONDocument, skip: Int, limit: Int) throws(StoreError) -> Int {
        guard skip >= 0 else { throw .badValue("skip value must be non-negative, but received: \(skip)") }
        guard let state = collection(namespace) else { return 0 }
        let (matcher, plan) = try state.compile(filter)
        if !plan.isSingleStatement { try beginDeferredTransaction() }
        let wanted = limit == 0 ? nil : abs(limit) + skip
        var statistics = ScanStatistics()
        var matched = 0
        try scanCandidates(state, plan: plan, statistics: &statistics) { document throws(StoreError) in
            if try matcher.match(document) != nil { matched += 1 }
            return wanted.map { matched < $0 } ?? true
        }
        let counted = max(0, matched - skip)
        return limit == 0 ? counted : min(counted, abs(limit))
    }

    func estimatedCount(_ namespace: Namespace) throws(StoreError) -> Int {
        guard let state = collection(namespace) else { return 0 }
        return try engine.documentCount(collection: state.record.id)
    }

    /// Distinct values of `field` among matches; array values contribute their elements, as in MongoDB.
    func distinct(_ namespace: Namespace, field: String, filter: BSONDocument) throws(StoreError) -> [BSON] {
        let path = try IndexDefinition(id: 0, name: "", keyPattern: [field: 1], unique: false)
        var values: [BSON] = []
        for document in try find(namespace, filter: filter, options: FindOptions()) {
            values.append(contentsOf: path.values(in: document))
        }
        let sorted = values.sorted { BSON.compare($0, $1) < 0 }
        var distinct: [BSON] = []
        for value in sorted where distinct.last.map({ BSON.compare($0, value) != 0 }) ?? true {
            distinct.append(value)
        }
        return distinct
    }

    /// With `access`, the pipeline's input is what the reader may see of the collection.
    func aggregate(
        _ namespace: Namespace, pipeline stages: [BSONDocument], access: (any DocumentAccess)? = nil
    ) throws(StoreError) -> [BSONDocument] {
        let pipeline = try Pipeline(stages)
        // A leading $match narrows the input through the planner; the pipeline still applies it.
        var filter = stages.first.flatMap { $0.count == 1 ? $0["$match"]?.documentValue : nil } ?? [:]
        if let access { filter = filter.restricted(to: try access.readFilter(namespace)) }
        var input = try find(namespace, filter: filter, options: FindOptions())
        if let access, access.redaction(namespace) != .none {
            input = input.compactMap { access.redact($0, in: namespace) }
        }
        return try pipeline.run(
            input,
            context: StageContext(
                source: StorePipelineSource(view: self, database: namespace.database), variables: [:],
                deadline: deadline))
    }

    // MARK: Candidates

    /// What reading a query's candidates cost, for `explain`.
    struct ScanStatistics {
        var keysExamined = 0
        var documentsExamined = 0
    }

    /// Visits the candidate documents of `filter` (a superset of its matches) in the plan's order until
    /// `visit` returns false.
    func scanCandidates(
        _ state: StoreCore.CollectionState, plan: QueryPlan, statistics: inout ScanStatistics,
        _ visit: (BSONDocument) throws(StoreError) -> Bool
    ) throws(StoreError) {
        let collection = state.record.id
        switch plan {
        case .collectionScan:
            // Each document is visited as the scan meets it: a scan holds one body at a time, not the bodies of
            // the whole collection (those of a queue of 900,000 entries took 400 MB), and a visit that has what
            // it wants (a limit reached) ends the scan there.
            try engine.scanDocuments(collection: collection) { _, body throws(StoreError) in
                try checkDeadline()
                statistics.documentsExamined += 1
                return try visit(try DocumentEncoding.decode(body))
            }
        case .idLookup(let ids):
            var seen = Set<[UInt8]>()
            for id in ids {
                let key = try IndexKey.encode(id)
                statistics.keysExamined += 1
                guard seen.insert(key).inserted, let body = try engine.document(collection: collection, key: key) else {
                    continue
                }
                try checkDeadline()
                statistics.documentsExamined += 1
                guard try visit(try DocumentEncoding.decode(body)) else { return }
            }
        case .indexScan(let index, let ranges):
            // A multikey document has several entries; it is a candidate once, at its first. The first
            // row is kept aside: a lookup that finds one document needs no set.
            var first: DocumentRow?
            var seen = Set<DocumentRow>()
            for range in ranges {
                var stopped = false
                try engine.scanIndexedDocuments(index: index.id, from: range.lower, to: range.upper) {
                    row, body throws(StoreError) in
                    statistics.keysExamined += 1
                    if let first {
                        if seen.isEmpty { seen.insert(first) }
                        guard seen.insert(row).inserted else { return true }
                    } else {
                        first = row
                    }
                    try checkDeadline()
                    statistics.documentsExamined += 1
                    stopped = try !visit(try DocumentEncoding.decode(body))
                    return !stopped
                }
                if stopped { return }
            }
        }
    }

    /// Matching documents in candidate order (with their match, for positional projection and updates).
    func matchingDocuments(
        _ state: StoreCore.CollectionState, filter: BSONDocument, limit: Int? = nil,
        statistics: inout ScanStatistics
    ) throws(StoreError) -> [(document: BSONDocument, match: QueryMatch)] {
        let (matcher, plan) = try state.compile(filter)
        // A read whose transaction was deferred needs one for a plan of several statements.
        if !plan.isSingleStatement { try beginDeferredTransaction() }
        var results: [(document: BSONDocument, match: QueryMatch)] = []
        try scanCandidates(state, plan: plan, statistics: &statistics) { document throws(StoreError) in
            if let match = try matcher.match(document) { results.append((document, match)) }
            return limit.map { results.count < $0 } ?? true
        }
        return results
    }
}

/// `$lookup`'s view of the other collections of a database, read in the same view while the pipeline runs.
struct StorePipelineSource: PipelineSource, @unchecked Sendable {
    // Unchecked: the view is only used synchronously from `Pipeline.run`, on the thread that owns the
    // view's engine for the duration of the read; the source never outlives that call.
    let view: StoreView
    let database: String

    func documents(inCollection name: String) throws(StoreError) -> [BSONDocument] {
        try view.find(Namespace(database: database, collection: name), filter: [:], options: FindOptions())
    }
}
