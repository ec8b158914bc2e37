import BSON

/// The `arrayFilters` of an update: one query per identifier, run against each array element as
/// `{identifier: element}` for the `$[identifier]` path components.
struct ArrayFilters: Sendable {
    private var filters: [String: QueryFilter] = [:]

    var identifiers: Set<String> { Set(filters.keys) }

    init() {}

    init(_ documents: [BSONDocument]) throws(StoreError) {
        for document in documents {
            let identifier = try Self.identifier(of: document)
            guard filters[identifier] == nil else {
                throw .failedToParse("Found multiple array filters with the same top-level field name \(identifier)")
            }
            filters[identifier] = try QueryFilter(document)
        }
    }

    /// True when the filter for `identifier` matches `element`.
    func matches(_ identifier: String, _ element: BSON) throws(StoreError) -> Bool {
        guard let filter = filters[identifier] else { return false }
        return try filter.evaluate([identifier: element]) != nil
    }

    /// The one top-level name the filter's fields start with (`x` in `{"x.score": {$gte: 8}}`), looking
    /// through `$and`, `$or` and `$nor`.
    private static func identifier(of filter: BSONDocument) throws(StoreError) -> String {
        var found: String?
        try collectIdentifiers(filter, into: &found, depth: 0)
        guard let found else {
            throw .failedToParse("Cannot use an expression without a top-level field name in arrayFilters")
        }
        guard let first = found.unicodeScalars.first, ("a"..."z").contains(first),
            found.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
            })
        else {
            throw .badValue(
                "Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '\(found)'"
            )
        }
        return found
    }

    private static func collectIdentifiers(_ filter: BSONDocument, into found: inout String?, depth: Int)
        throws(StoreError)
    {
        guard depth < 20 else { return }
        for (key, value) in filter {
            if key == "$and" || key == "$or" || key == "$nor" {
                for case .document(let clause) in value.arrayValue ?? [] {
                    try collectIdentifiers(clause, into: &found, depth: depth + 1)
                }
                continue
            }
            if key.hasPrefix("$") { continue }
            let name = String(key.prefix { $0 != "." })
            if let found, found != name {
                throw .failedToParse(
                    "Error parsing array filter :: caused by :: Expected a single top-level field name, found '\(found)' and '\(name)'"
                )
            }
            found = name
        }
    }
}
