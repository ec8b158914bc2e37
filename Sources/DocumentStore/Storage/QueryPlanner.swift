import BSON

/// A range of index keys, `lower <= key < upper` (nil upper: no bound).
struct KeyRange: Sendable, Equatable {
    var lower: [UInt8]
    var upper: [UInt8]?
}

/// The index a scan reads: its catalog id, under which its entries are stored, and its name for `explain`.
/// A plan carries only these, not the whole definition, as it is made for every query.
struct IndexReference: Sendable {
    var id: Int64
    var name: String

    init(_ index: IndexDefinition) {
        id = index.id
        name = index.name
    }
}

/// How a query reads its candidates. Candidates are always a superset of the matches: the filter is
/// applied to every candidate, so the planner only needs to be right about what it may skip.
enum QueryPlan: Sendable {
    case collectionScan
    /// Point lookups of `_id` values in the documents table.
    case idLookup([BSON])
    case indexScan(IndexReference, [KeyRange])

    /// The stage name `explain` reports.
    var stage: String {
        switch self {
        case .collectionScan: "COLLSCAN"
        case .idLookup: "IDHACK"
        case .indexScan: "IXSCAN"
        }
    }

    /// Whether reading the candidates takes one SQL statement (which sees one commit by itself).
    var isSingleStatement: Bool {
        switch self {
        case .collectionScan: true
        case .idLookup(let ids): ids.count <= 1
        case .indexScan(_, let ranges): ranges.count <= 1
        }
    }

    var indexName: String? {
        switch self {
        case .collectionScan: nil
        case .idLookup: "_id_"
        case .indexScan(let index, _): index.name
        }
    }
}

/// Chooses an index from the filter's indexable conditions (`QueryFilter.indexableConditions`: top-level
/// and `$and` equalities, `$in` and ranges): equality or `$in` on `_id`, then equality or `$in` on an
/// index's leading field (unique indexes first), then a range on an ascending leading field.
enum QueryPlanner {
    static func plan(_ conditions: [IndexableCondition], indexes: [IndexDefinition]) -> QueryPlan {
        if let points = conditions.points(on: "_id") { return .idLookup(points) }
        var rangeCandidate: QueryPlan?
        let ordered = indexes.count > 1 ? indexes.sorted(by: { $0.unique && !$1.unique }) : indexes
        for index in ordered {
            guard let leading = index.fields.first else { continue }
            if let points = conditions.points(on: leading.path) {
                let ranges = points.compactMap { try? pointRange($0, descending: leading.descending) }
                if ranges.count == points.count { return .indexScan(IndexReference(index), deduplicated(ranges)) }
            }
            if rangeCandidate == nil, !leading.descending,
                let range = conditions.lazy.filter({ BSONDocument.sameKey($0.path, leading.path) }).compactMap({
                    try? boundRange($0.bounds)
                })
                .first
            {
                rangeCandidate = .indexScan(IndexReference(index), [range])
            }
        }
        return rangeCandidate ?? .collectionScan
    }

    /// The fields an upsert copies from its filter: top-level equalities (and `$eq`), also under `$and`.
    static func equalityFields(_ filter: BSONDocument) -> BSONDocument {
        var document = BSONDocument()
        addEqualities(filter, to: &document, depth: 0)
        return document
    }

    private static func addEqualities(_ filter: BSONDocument, to document: inout BSONDocument, depth: Int) {
        guard depth < 20 else { return }
        for (key, value) in filter {
            if key == "$and", case .array(let clauses) = value {
                for case .document(let clause) in clauses { addEqualities(clause, to: &document, depth: depth + 1) }
                continue
            }
            guard !key.hasPrefix("$") else { continue }
            var equal: BSON?
            if case .document(let operators) = value, let first = operators.keys.first, first.hasPrefix("$") {
                equal = operators["$eq"]
            } else if case .regex = value {
                equal = nil
            } else {
                equal = value
            }
            if let equal { try? document.setValue(equal, atPath: key) }
        }
    }

    /// Decimal128 is indexed through its nearest double, so its exact comparisons are left to a scan.
    fileprivate static func isExact(_ value: BSON) -> Bool {
        if case .decimal128 = value { return false }
        return true
    }

    /// The keys equal to `value` in an index field of that direction.
    static func pointRange(_ value: BSON, descending: Bool) throws(StoreError) -> KeyRange {
        var key = try IndexKey.encode(value)
        if descending { key = key.map { ~$0 } }
        return KeyRange(lower: key, upper: IndexKey.successor(of: key))
    }

    /// One bound only: on a multikey field a lower and an upper bound may be met by different elements.
    private static func boundRange(_ bounds: IndexableCondition.Bounds) throws(StoreError) -> KeyRange? {
        guard case .range(let lower, let upper) = bounds else { return nil }
        if let lower, isExact(lower.value) {
            return KeyRange(lower: try IndexKey.encode(lower.value), upper: [IndexKey.rankByte(of: lower.value) + 1])
        }
        if let upper, isExact(upper.value) {
            return KeyRange(
                lower: [IndexKey.rankByte(of: upper.value)],
                upper: IndexKey.successor(of: try IndexKey.encode(upper.value)))
        }
        return nil
    }

    private static func deduplicated(_ ranges: [KeyRange]) -> [KeyRange] {
        guard ranges.count > 1 else { return ranges }
        var seen = Set<[UInt8]>()
        return ranges.sorted { $0.lower.lexicographicallyPrecedes($1.lower) }.filter { seen.insert($0.lower).inserted }
    }
}

extension Array where Element == IndexableCondition {
    /// The values of the first equality or `$in` on `path` whose values the index holds exactly.
    fileprivate func points(on path: String) -> [BSON]? {
        for condition in self where BSONDocument.sameKey(condition.path, path) {
            switch condition.bounds {
            case .equal(let value) where QueryPlanner.isExact(value): return [value]
            case .in(let values) where values.allSatisfy(QueryPlanner.isExact): return values
            default: continue
            }
        }
        return nil
    }
}
