import BSON

/// A sort specification (`{"date": -1, "_id": 1}`) with MongoDB's rules for arrays and missing fields: an
/// ascending sort orders an array by its smallest element and a descending sort by its largest, a missing
/// field sorts as null, an empty array sorts before null, and values of different types follow
/// `BSON.compare`.
package struct SortSpecification: Sendable {
    struct Key: Sendable {
        let path: FieldPath
        let ascending: Bool
    }

    let keys: [Key]

    package init(_ specification: BSONDocument) throws(StoreError) {
        var keys: [Key] = []
        for (field, direction) in specification {
            try Self.validate(field)
            if case .document(let meta) = direction, meta.keys.first == "$meta" {
                throw .badValue("$meta sort keys are not supported: Switchyard has no text search")
            }
            guard direction.isNumber, let value = direction.doubleValue, value == 1 || value == -1 else {
                throw .location(15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)")
            }
            keys.append(Key(path: FieldPath(field), ascending: value == 1))
        }
        self.keys = keys
    }

    /// True for `{}`: the documents keep their order.
    package var isEmpty: Bool { keys.isEmpty }

    /// Negative, zero or positive as `lhs` sorts before, with, or after `rhs`.
    package func compare(_ lhs: BSONDocument, _ rhs: BSONDocument) -> Int {
        for key in keys {
            let order = BSON.compare(Self.sortValue(of: lhs, for: key), Self.sortValue(of: rhs, for: key))
            if order != 0 { return key.ascending ? order : -order }
        }
        return 0
    }

    /// The documents in sort order; documents with equal keys keep their relative order. Each document's
    /// keys are computed once.
    package func sorted(_ documents: [BSONDocument]) -> [BSONDocument] {
        guard !keys.isEmpty else { return documents }
        let decorated = documents.enumerated().map { index, document in
            (index: index, values: keys.map { Self.sortValue(of: document, for: $0) }, document: document)
        }
        return decorated.sorted { lhs, rhs in
            for (position, key) in keys.enumerated() {
                let order = BSON.compare(lhs.values[position], rhs.values[position])
                if order != 0 { return key.ascending ? order < 0 : order > 0 }
            }
            return lhs.index < rhs.index
        }.map(\.document)
    }

    /// The value a document sorts by for one key: the smallest (ascending) or largest (descending) of the
    /// values the path reaches, with missing as null and an empty array as undefined (below null).
    static func sortValue(of document: BSONDocument, for key: Key) -> BSON {
        var best: BSON? = nil
        _ = key.path.visit(document, leafArrays: .elementsOnly) { value, _ in
            let candidate: BSON
            switch value {
            case nil: candidate = .null
            case .array(let elements)? where elements.isEmpty: candidate = .undefined
            case let value?: candidate = value
            }
            if let current = best {
                let order = BSON.compare(candidate, current)
                if key.ascending ? order < 0 : order > 0 { best = candidate }
            } else {
                best = candidate
            }
            return false
        }
        return best ?? .null
    }

    private static func validate(_ field: String) throws(StoreError) {
        if field.isEmpty { throw .location(40352, "FieldPath cannot be constructed with empty string") }
        for component in field.split(separator: ".", omittingEmptySubsequences: false) {
            if component.isEmpty { throw .location(15998, "FieldPath field names may not be empty strings.") }
            if component.hasPrefix("$") {
                throw .location(
                    16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
            }
        }
    }
}
