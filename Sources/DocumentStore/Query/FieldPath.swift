import BSON

/// A dotted field path (`size.uom`, `grades.0.score`) split once at compile time, with MongoDB's
/// array-expanding traversal for queries.
struct FieldPath: Sendable, Equatable {
    let dotted: String
    let components: [String]
    /// For each component, its value as an array index when it is all ASCII digits.
    let indexes: [Int?]

    init(_ dotted: String) {
        self.dotted = dotted
        // Most paths are one field name: no splitting.
        components =
            dotted.utf8.contains(UInt8(ascii: "."))
            ? dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init) : [dotted]
        indexes = components.map { component in
            guard !component.isEmpty, component.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int(component)
        }
    }

    /// How a path treats an array found where the path ends.
    enum LeafArrays {
        /// Each element, then the array itself (most operators: `{tags: "x"}` and `{tags: ["x"]}`).
        case elementsThenArray
        /// The array only (`$size`, `$elemMatch`).
        case arrayOnly
        /// Each element only, as sort keys read arrays; an empty array is visited as itself.
        case elementsOnly
    }

    /// Visits the values the path reaches in `document` as MongoDB's matcher sees them: nil for a missing
    /// value, and the index of the outermost array element each value came from. An array on the way is
    /// traversed element by element (documents inside it are searched for the rest of the path), and a numeric
    /// component also indexes the array. `visit` returns true to stop; the result says whether it stopped.
    func visit<Failure: Error>(
        _ document: BSONDocument, leafArrays: LeafArrays, _ visit: (BSON?, Int?) throws(Failure) -> Bool
    ) throws(Failure) -> Bool {
        try walk(document, from: 0, leafArrays, visit)
    }

    private func walk<Failure: Error>(
        _ document: BSONDocument, from start: Int, _ leafArrays: LeafArrays,
        _ visit: (BSON?, Int?) throws(Failure) -> Bool
    ) throws(Failure) -> Bool {
        // Descend through embedded documents until the path ends, goes missing, or meets an array.
        var current = document
        var position = start
        let last = components.count - 1
        while true {
            guard let value = current[components[position]] else { return try visit(nil, nil) }
            if position == last {
                guard case .array(let elements) = value else { return try visit(value, nil) }
                if leafArrays == .arrayOnly { return try visit(value, nil) }
                for (offset, element) in elements.enumerated() where try visit(element, offset) { return true }
                return leafArrays == .elementsOnly && !elements.isEmpty ? false : try visit(value, nil)
            }
            switch value {
            case .document(let child):
                current = child
                position += 1
            case .array(let elements):
                return try walkElements(elements, from: position + 1, leafArrays, visit)
            default:
                return try visit(nil, nil)
            }
        }
    }

    /// The elements of an array met before the path ended; `start` is the first component still to match.
    private func walkElements<Failure: Error>(
        _ elements: [BSON], from start: Int, _ leafArrays: LeafArrays, _ visit: (BSON?, Int?) throws(Failure) -> Bool
    ) throws(Failure) -> Bool {
        let index = indexes[start]
        let endsHere = start == components.count - 1
        for (offset, element) in elements.enumerated() {
            let isOffsetMatch = index == offset
            if case .document(let child) = element {
                // The element's own fields first; values found there report this element's offset.
                if try walk(child, from: start, leafArrays, { (value, _) throws(Failure) in try visit(value, offset) })
                {
                    return true
                }
                guard isOffsetMatch else { continue }
                if endsHere {
                    if try visit(element, nil) { return true }
                } else if try walk(child, from: start + 1, leafArrays, visit) {
                    return true
                }
            } else if isOffsetMatch {
                if endsHere {
                    // An explicitly indexed element is not expanded further, even when it is an array.
                    if try visit(element, nil) { return true }
                } else if case .array(let nested) = element {
                    if try walkElements(nested, from: start + 1, leafArrays, visit) { return true }
                }
            }
        }
        return false
    }
}
