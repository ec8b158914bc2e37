import BSON

/// One node of a compiled filter. Logical nodes combine children; `.field` applies a predicate to the values a
/// path reaches. The same tree also runs inside `$elemMatch` on single values, where paths are ignored.
indirect enum QueryMatcher: Sendable {
    case and([QueryMatcher])
    case or([QueryMatcher])
    case nor([QueryMatcher])
    case not(QueryMatcher)
    case field(FieldPath, QueryPredicate)
    case expr(Expression)
    case always(Bool)

    /// Whether `document` matches. `position` receives the array offset the positional `$` operator uses;
    /// like MongoDB, only `$and` branches and field predicates report it (not `$or`, `$nor` or `$not`).
    func matches(_ document: BSONDocument, position: inout Int?) throws(StoreError) -> Bool {
        switch self {
        case .and(let children):
            for child in children where try !child.matches(document, position: &position) { return false }
            return true
        case .or(let children):
            var ignored: Int? = nil
            for child in children where try child.matches(document, position: &ignored) { return true }
            return false
        case .nor(let children):
            var ignored: Int? = nil
            for child in children where try child.matches(document, position: &ignored) { return false }
            return true
        case .not(let child):
            var ignored: Int? = nil
            return try !child.matches(document, position: &ignored)
        case .field(let path, let predicate):
            var found: Int? = nil
            var innerPosition: Int? = nil
            let matched = try path.visit(document, leafArrays: predicate.leafArrays) {
                (value, offset) throws(StoreError) in
                guard try predicate.matches(value, innerPosition: &innerPosition) else { return false }
                found = offset ?? innerPosition
                return true
            }
            if matched, let found { position = found }
            return matched
        case .expr(let expression):
            return try expression.evaluate(document).isTruthy
        case .always(let result):
            return result
        }
    }

    /// The match of a whole document, nil when it does not match (see `QueryFilter.evaluate`).
    func match(_ document: BSONDocument) throws(StoreError) -> QueryMatch? {
        var position: Int? = nil
        guard try matches(document, position: &position) else { return nil }
        return QueryMatch(arrayPosition: position)
    }

    /// The node applied to one value, as `$elemMatch` on scalars does (`{$elemMatch: {$gte: 80, $lt: 85}}`).
    func matchesValue(_ value: BSON?) throws(StoreError) -> Bool {
        switch self {
        case .and(let children):
            for child in children where try !child.matchesValue(value) { return false }
            return true
        case .or(let children):
            for child in children where try child.matchesValue(value) { return true }
            return false
        case .nor(let children):
            for child in children where try child.matchesValue(value) { return false }
            return true
        case .not(let child): return try !child.matchesValue(value)
        case .field(_, let predicate):
            var ignored: Int? = nil
            return try predicate.matches(value, innerPosition: &ignored)
        case .expr: return false  // rejected by the parser below the top level
        case .always(let result): return result
        }
    }
}

extension BSON {
    /// Truthiness as `$expr` and `$exists` read it: false, null, undefined and numeric zero are false.
    var isTruthy: Bool {
        switch self {
        case .bool(let value): value
        case .null, .undefined: false
        case .int32(let value): value != 0
        case .int64(let value): value != 0
        case .double(let value): value != 0
        case .decimal128(let value): value.doubleValue.map { $0 != 0 } ?? true
        default: true
        }
    }
}
