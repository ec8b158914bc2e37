import BSON

/// A range of index keys, `lower <= key < upper` (nil upper: no bound).
struct KeyRange: Sendable, Equatable {
    var lower: [UInt8]
    var upper: [UInt8]?
}

/// How a query reads its candidates. Candidates are always a superset of the matches: the filter is
/// applied to every candidate, so the planner only needs to be right about what it may skip.
enum QueryPlan: Sendable {
    case collectionScan
    /// Point lookups of `_id` values in the documents table.
    case idLookup([BSON])
    case indexScan(IndexDefinition, [KeyRange])

    /// The stage name `explain` reports.
    var stage: String {
        switch self {
        case .collectionScan: "COLLSCAN"
        case .idLookup: "IDHACK"
        case .indexScan: "IXSCAN"
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

/// Chooses an index from a filter's top-level conditions (and those under a top-level `$and`):
/// equality or `$in` on `_id`, then equality or `$in` on an index's leading field, then a range on an
/// ascending leading field.
enum QueryPlanner {
    enum Condition {
        case points([BSON])
        case lowerBound(BSON)
        case upperBound(BSON)
    }

    static func plan(_ filter: BSONDocument, indexes: [IndexDefinition]) -> QueryPlan {
        var conditions: [String: [Condition]] = [:]
        collect(filter, into: &conditions, depth: 0)
        if let points = conditions["_id"]?.firstPoints { return .idLookup(points) }
        var rangeCandidate: QueryPlan?
        for index in indexes.sorted(by: { $0.unique && !$1.unique }) {
            guard let leading = index.fields.first, let fieldConditions = conditions[leading.path] else { continue }
            if let points = fieldConditions.firstPoints {
                let ranges = points.compactMap { try? pointRange($0, descending: leading.descending) }
                if ranges.count == points.count { return .indexScan(index, deduplicated(ranges)) }
            }
            if rangeCandidate == nil, !leading.descending,
                let range = fieldConditions.lazy.compactMap({ try? boundRange($0) }).first
            {
                rangeCandidate = .indexScan(index, [range])
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

    private static func collect(_ filter: BSONDocument, into conditions: inout [String: [Condition]], depth: Int) {
        guard depth < 20 else { return }
        for (key, value) in filter {
            if key == "$and", case .array(let clauses) = value {
                for case .document(let clause) in clauses { collect(clause, into: &conditions, depth: depth + 1) }
                continue
            }
            guard !key.hasPrefix("$") else { continue }
            if case .document(let operators) = value, let first = operators.keys.first, first.hasPrefix("$") {
                for (op, operand) in operators {
                    switch op {
                    case "$eq" where isIndexable(operand): conditions[key, default: []].append(.points([operand]))
                    case "$in":
                        if case .array(let values) = operand, values.allSatisfy(isIndexable) {
                            conditions[key, default: []].append(.points(values))
                        }
                    case "$gt",
                        "$gte" where isRangeBound(operand):
                        conditions[key, default: []].append(.lowerBound(operand))
                    case "$lt",
                        "$lte" where isRangeBound(operand):
                        conditions[key, default: []].append(.upperBound(operand))
                    default: break
                    }
                }
            } else if isIndexable(value) {
                conditions[key, default: []].append(.points([value]))
            }
        }
    }

    /// Values whose equality matches exactly the index entries with their key. Arrays (which also match
    /// as a whole), regular expressions (which match by pattern) and decimal128 (indexed approximately)
    /// are left to a scan.
    private static func isIndexable(_ value: BSON) -> Bool {
        switch value {
        case .array, .regex, .decimal128: false
        case .document(let d): !(d.keys.first?.hasPrefix("$") ?? false)
        default: true
        }
    }

    /// Range operators compare within one type bracket, except MinKey/MaxKey which span all types.
    private static func isRangeBound(_ value: BSON) -> Bool {
        switch value {
        case .minKey, .maxKey, .array: false
        default: isIndexable(value)
        }
    }

    private static func pointRange(_ value: BSON, descending: Bool) throws(StoreError) -> KeyRange {
        var key = try IndexKey.encode(value)
        if descending { key = key.map { ~$0 } }
        return KeyRange(lower: key, upper: IndexKey.successor(of: key))
    }

    /// One bound only: on a multikey field a lower and an upper bound may be met by different elements.
    private static func boundRange(_ condition: Condition) throws(StoreError) -> KeyRange? {
        switch condition {
        case .points: return nil
        case .lowerBound(let value):
            return KeyRange(lower: try IndexKey.encode(value), upper: [IndexKey.rankByte(of: value) + 1])
        case .upperBound(let value):
            return KeyRange(
                lower: [IndexKey.rankByte(of: value)], upper: IndexKey.successor(of: try IndexKey.encode(value)))
        }
    }

    private static func deduplicated(_ ranges: [KeyRange]) -> [KeyRange] {
        var seen = Set<[UInt8]>()
        return ranges.sorted { $0.lower.lexicographicallyPrecedes($1.lower) }.filter { seen.insert($0.lower).inserted }
    }
}

extension Array where Element == QueryPlanner.Condition {
    fileprivate var firstPoints: [BSON]? {
        for case .points(let values) in self { return values }
        return nil
    }
}
