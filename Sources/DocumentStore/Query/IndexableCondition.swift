import BSON

/// A condition of a filter that an index on `path` can narrow the scan for: an equality, a range or an `$in`
/// on a field, taken from the top level of the filter (and from `$and` clauses there), so every matching
/// document satisfies it.
///
/// The conditions are necessary, not sufficient: a document found through an index must still pass
/// `QueryFilter.match`. Conditions involving null, undefined, arrays or regular expressions are left out,
/// because they also match missing fields, whole arrays or patterns that an index range cannot express.
package struct IndexableCondition: Sendable, Equatable {
    /// The dotted field path as written in the filter (`"volumeInfo.title"`).
    package var path: String
    package var bounds: Bounds

    package enum Bounds: Sendable, Equatable {
        /// `{path: value}` or `{path: {$eq: value}}`.
        case equal(BSON)
        /// `$gt`/`$gte` and `$lt`/`$lte` from one operator document. MongoDB compares only within the bound's
        /// type bracket (`BSON.canonicalTypeOrder`), so a one-sided range ends where that bracket ends:
        /// `{$gt: 5}` matches numbers above 5, never strings.
        case range(lower: Bound?, upper: Bound?)
        /// `{path: {$in: [values]}}`: equal to any of the values.
        case `in`([BSON])
    }

    package struct Bound: Sendable, Equatable {
        package var value: BSON
        package var inclusive: Bool

        package init(_ value: BSON, inclusive: Bool) {
            self.value = value
            self.inclusive = inclusive
        }
    }

    package init(path: String, bounds: Bounds) {
        self.path = path
        self.bounds = bounds
    }

    /// The conditions of an already validated filter.
    static func conditions(of filter: BSONDocument) -> [IndexableCondition] {
        var conditions: [IndexableCondition] = []
        collect(filter, into: &conditions, depth: 0)
        return conditions
    }

    private static func collect(_ filter: BSONDocument, into conditions: inout [IndexableCondition], depth: Int) {
        guard depth <= QueryFilterParser.maximumDepth else { return }
        for (key, value) in filter {
            if key == "$and", case .array(let clauses) = value {
                for case .document(let clause) in clauses { collect(clause, into: &conditions, depth: depth + 1) }
                continue
            }
            if key.hasPrefix("$") { continue }
            if case .document(let operators) = value, QueryFilter.isOperatorDocument(operators) {
                conditions += self.conditions(path: key, operators: operators)
            } else if isIndexable(value) {
                conditions.append(IndexableCondition(path: key, bounds: .equal(value)))
            }
        }
    }

    private static func conditions(path: String, operators: BSONDocument) -> [IndexableCondition] {
        var conditions: [IndexableCondition] = []
        var lower: Bound? = nil
        var upper: Bound? = nil
        for (name, operand) in operators {
            switch name {
            case "$eq" where isIndexable(operand):
                conditions.append(IndexableCondition(path: path, bounds: .equal(operand)))
            case "$in":
                if case .array(let values) = operand, values.allSatisfy(isIndexable) {
                    conditions.append(IndexableCondition(path: path, bounds: .in(values)))
                }
            case "$gt", "$gte":
                guard isRangeBound(operand) else { continue }
                let bound = Bound(operand, inclusive: name == "$gte")
                // Of two lower bounds the tighter one holds.
                if let current = lower, !tighterLower(bound, than: current) { continue }
                lower = bound
            case "$lt", "$lte":
                guard isRangeBound(operand) else { continue }
                let bound = Bound(operand, inclusive: name == "$lte")
                if let current = upper, !tighterUpper(bound, than: current) { continue }
                upper = bound
            default:
                continue
            }
        }
        if lower != nil || upper != nil {
            conditions.append(IndexableCondition(path: path, bounds: .range(lower: lower, upper: upper)))
        }
        return conditions
    }

    private static func isIndexable(_ value: BSON) -> Bool {
        switch value {
        case .null, .undefined, .array, .regex: false
        default: true
        }
    }

    /// MinKey and MaxKey bounds also match missing fields, and NaN bounds match only NaN.
    private static func isRangeBound(_ value: BSON) -> Bool {
        switch value {
        case .minKey, .maxKey: false
        default: isIndexable(value) && !value.isNaN
        }
    }

    private static func tighterLower(_ bound: Bound, than current: Bound) -> Bool {
        let order = BSON.compare(bound.value, current.value)
        return order > 0 || (order == 0 && !bound.inclusive)
    }

    private static func tighterUpper(_ bound: Bound, than current: Bound) -> Bool {
        let order = BSON.compare(bound.value, current.value)
        return order < 0 || (order == 0 && !bound.inclusive)
    }
}
