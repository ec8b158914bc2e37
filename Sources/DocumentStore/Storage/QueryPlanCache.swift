import BSON
import Synchronization

/// A collection's compiled filters and plans for equality queries (`{"isbn": "…"}`, `{"_id": id}`),
/// kept by the filter's shape — its field names, in order — so that a query of a known shape skips
/// parsing and planning and only binds its values.
///
/// Only filters whose every field is a plain scalar equality are kept: for those the parser's matcher is
/// one equality per field and the planner's choice depends on the field names and the indexes alone,
/// never on the values. A plan depends on the indexes, so a cache belongs to one value of
/// `CollectionState.indexes` and a new one starts with every change: creating or dropping an index,
/// and dropping or re-creating the collection, all start empty, and a reader still holding an older
/// catalog uses that catalog's cache, which matches the indexes it sees.
final class QueryPlanCache: Sendable {
    /// Shapes kept per collection; past it the oldest goes.
    static let capacity = 32

    private let shapes = Mutex<[Shape]>([])

    /// How a shape reads its candidates; the field is an offset into the filter.
    private enum Access: Sendable {
        case collectionScan
        case idLookup(field: Int)
        case indexScan(IndexReference, descending: Bool, field: Int)
    }

    private final class Shape: Sendable {
        let fields: [String]
        let paths: [FieldPath]
        let access: Access

        init(fields: [String], access: Access) {
            self.fields = fields
            self.paths = fields.map(FieldPath.init)
            self.access = access
        }

        func matches(_ filter: BSONDocument) -> Bool {
            let keys = filter.keys
            guard fields.count == keys.count else { return false }
            for i in fields.indices where !BSONDocument.sameKey(fields[i], keys[i]) { return false }
            return true
        }
    }

    /// The matcher and plan of `filter` over `indexes` (the indexes this cache belongs to).
    func compile(_ filter: BSONDocument, indexes: [IndexDefinition]) throws(StoreError)
        -> (matcher: DocumentMatcher, plan: QueryPlan)
    {
        guard !filter.isEmpty else { return (DocumentMatcher(nil), .collectionScan) }
        guard Self.isEqualityShape(filter) else { return try Self.plan(filter, indexes: indexes) }
        if let shape = shapes.withLock({ shapes in shapes.last { $0.matches(filter) } }) {
            return (Self.matcher(shape, filter.values), try Self.plan(shape.access, filter.values))
        }
        let compiled = try Self.plan(filter, indexes: indexes)
        if let access = Self.access(of: compiled.plan, fields: filter.keys, indexes: indexes) {
            let shape = Shape(fields: filter.keys, access: access)
            shapes.withLock { shapes in
                guard !shapes.contains(where: { $0.matches(filter) }) else { return }
                if shapes.count == Self.capacity { shapes.removeFirst() }
                shapes.append(shape)
            }
        }
        return compiled
    }

    /// Parsing and planning, as for any filter.
    private static func plan(_ filter: BSONDocument, indexes: [IndexDefinition]) throws(StoreError)
        -> (matcher: DocumentMatcher, plan: QueryPlan)
    {
        let compiled = try QueryFilter(filter)
        return (DocumentMatcher(compiled.root), QueryPlanner.plan(compiled.indexableConditions, indexes: indexes))
    }

    /// Every field a plain path equal to a value the parser takes as a plain equality (not a document,
    /// array or pattern, nor null or undefined, which also match missing fields) and the planner as an
    /// exact index point (not decimal128).
    private static func isEqualityShape(_ filter: BSONDocument) -> Bool {
        for key in filter.keys where key.hasPrefix("$") { return false }
        for value in filter.values {
            switch value {
            case .document, .array, .regex, .null, .undefined, .decimal128: return false
            default: continue
            }
        }
        return true
    }

    /// The parser's matcher for an equality shape: one equality per field, AND-ed.
    private static func matcher(_ shape: Shape, _ values: [BSON]) -> DocumentMatcher {
        if values.count == 1 { return DocumentMatcher(.field(shape.paths[0], .compare(.eq, values[0]))) }
        let equalities = zip(shape.paths, values).map { QueryMatcher.field($0, .compare(.eq, $1)) }
        return DocumentMatcher(QueryFilterParser.conjunction(equalities))
    }

    /// The shape of the planner's choice: the field whose value it looked up (the first one with the
    /// path, as the planner takes it); nil for a plan that does not bind one value.
    private static func access(of plan: QueryPlan, fields: [String], indexes: [IndexDefinition]) -> Access? {
        switch plan {
        case .collectionScan:
            return .collectionScan
        case .idLookup(let ids):
            guard ids.count == 1, let field = fields.firstIndex(where: { BSONDocument.sameKey($0, "_id") }) else {
                return nil
            }
            return .idLookup(field: field)
        case .indexScan(let index, let ranges):
            guard ranges.count == 1, let leading = indexes.first(where: { $0.id == index.id })?.fields.first,
                let field = fields.firstIndex(where: { BSONDocument.sameKey($0, leading.path) })
            else { return nil }
            return .indexScan(index, descending: leading.descending, field: field)
        }
    }

    private static func plan(_ access: Access, _ values: [BSON]) throws(StoreError) -> QueryPlan {
        switch access {
        case .collectionScan:
            return .collectionScan
        case .idLookup(let field):
            return .idLookup([values[field]])
        case .indexScan(let index, let descending, let field):
            return .indexScan(index, [try QueryPlanner.pointRange(values[field], descending: descending)])
        }
    }
}
