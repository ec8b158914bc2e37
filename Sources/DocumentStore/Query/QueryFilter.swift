import BSON

/// A compiled MongoDB query filter (`{"favoriteBooks": id, "age": {"$gte": 18}}`).
///
/// The filter is parsed once into a tree of matchers, with MongoDB's semantics: dotted paths through embedded
/// documents and arrays, implicit matching of array elements, null matching missing fields, comparisons
/// within one type bracket, and numbers equal across int, long, double and decimal.
package struct QueryFilter: Sendable {
    let root: QueryMatcher

    /// Top-level, AND-ed conditions an index on `path` can serve; see `IndexableCondition`.
    package let indexableConditions: [IndexableCondition]

    package init(_ filter: BSONDocument) throws(StoreError) {
        root = try QueryFilterParser().parse(filter, level: .predicateTop, depth: 0)
        indexableConditions = IndexableCondition.conditions(of: filter)
    }

    /// True when the filter matches every document (`{}`, or only `$comment`).
    package var matchesAllDocuments: Bool {
        if case .always(true) = root { return true }
        return false
    }

    /// The match, or nil when the document does not match (or when a `$expr` fails to evaluate on it; use
    /// `evaluate(_:)` to see that error). The match carries the array position that the positional update
    /// operator `$` refers to.
    package func match(_ document: BSONDocument) -> QueryMatch? {
        (try? evaluate(document)) ?? nil
    }

    /// Like `match(_:)`, but throws what a `$expr` raises (`$divide` by zero, …) as MongoDB fails the query.
    package func evaluate(_ document: BSONDocument) throws(StoreError) -> QueryMatch? {
        try root.match(document)
    }

    package func matches(_ document: BSONDocument) -> Bool { match(document) != nil }

    /// `{$gt: 1}` is an operator document; `{a: 1}`, `{}` and DBRefs (`{$ref, $id}`) are plain values.
    static func isOperatorDocument(_ document: BSONDocument, allowIncompleteDBRef: Bool = false) -> Bool {
        guard let first = document.keys.first, first.hasPrefix("$") else { return false }
        let hasRef = document.contains("$ref")
        let hasID = document.contains("$id")
        let isDBRef = allowIncompleteDBRef ? hasRef || hasID || document.contains("$db") : hasRef && hasID
        return !isDBRef
    }
}

/// What a successful match learned on the way.
package struct QueryMatch: Sendable, Equatable {
    /// Index of the array element matched, for the positional `$` update operator and `field.$` projection:
    /// the offset in the first array traversed on the matching path (as MongoDB records it, the last AND-ed
    /// condition that matched through an array wins).
    package var arrayPosition: Int?

    package init(arrayPosition: Int? = nil) { self.arrayPosition = arrayPosition }
}
