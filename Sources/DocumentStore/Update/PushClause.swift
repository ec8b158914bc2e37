import BSON

/// `$push`'s argument: one value, or `{$each: [...], $position, $sort, $slice}`, applied in the server's
/// order: insert at the position, then sort, then slice.
struct PushClause: Sendable {
    var values: [BSON]
    var position: Int64?
    var slice: Int64?
    var sort: Sort?

    enum Sort: Sendable {
        /// `$sort: 1` or `-1`: whole elements in BSON order.
        case elements(descending: Bool)
        /// `$sort: {field: 1, …}`: documents by their fields; other elements sort as documents without
        /// those fields.
        case fields(SortSpecification)
    }

    init(_ argument: BSON) throws(StoreError) {
        guard case .document(let clauses) = argument, let each = clauses["$each"] else {
            values = [argument]
            return
        }
        for key in clauses.keys where !["$each", "$slice", "$sort", "$position"].contains(key) {
            throw .badValue("Unrecognized clause in $push: \(key)")
        }
        if let duplicate = clauses.firstDuplicateKey {
            throw .badValue("Only one \(duplicate) is supported.")
        }
        guard case .array(let eachValues) = each else {
            throw .badValue("The argument to $each in $push must be an array but it was of type: \(each.typeName)")
        }
        values = eachValues
        if let slice = clauses["$slice"] {
            guard let count = Self.integer(slice) else {
                throw .badValue("The value for $slice must be an integer value but was given type: \(slice.typeName)")
            }
            self.slice = count
        }
        if let sort = clauses["$sort"] {
            self.sort = try Self.sort(sort)
        }
        if let position = clauses["$position"] {
            guard let index = Self.integer(position) else {
                throw .badValue(
                    "The value for $position must be an integer value, not of type: \(position.typeName)")
            }
            self.position = index
        }
    }

    private static func integer(_ value: BSON) -> Int64? {
        value.isNumber ? value.int64Value : nil
    }

    private static func sort(_ value: BSON) throws(StoreError) -> Sort {
        switch value {
        case .document(let pattern):
            guard !pattern.isEmpty else {
                throw .badValue("The $sort pattern is empty when it should be a set of fields.")
            }
            for (field, direction) in pattern {
                guard direction.isNumber, direction.doubleValue == 1 || direction.doubleValue == -1 else {
                    throw .badValue("The $sort element value must be either 1 or -1")
                }
                if field.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
                    throw .badValue("The $sort field is a dotted field but has an empty part: \(field)")
                }
            }
            return .fields(try SortSpecification(pattern))
        case _ where value.isNumber:
            guard value.doubleValue == 1 || value.doubleValue == -1 else {
                throw .badValue("The $sort element value must be either 1 or -1")
            }
            return .elements(descending: value.doubleValue == -1)
        default:
            throw .badValue(
                "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields")
        }
    }

    func apply(to value: BSON?, at path: [String], in application: UpdateApplication) throws(StoreError)
        -> FieldChange
    {
        var elements: [BSON]
        switch value {
        case nil: elements = []
        case .array(let existing)?: elements = existing
        case let other?:
            throw .badValue(
                "The field '\(path.joined(separator: "."))' must be an array but is of type \(other.typeName) in document {\(application.documentIDText)}"
            )
        }
        elements.insert(contentsOf: values, at: insertionIndex(count: elements.count))
        switch sort {
        case .elements(let descending)?:
            elements.sort { descending ? BSON.compare($0, $1) > 0 : BSON.compare($0, $1) < 0 }
        case .fields(let specification)?:
            elements.sort { specification.compare($0.documentValue ?? [:], $1.documentValue ?? [:]) < 0 }
        case nil:
            break
        }
        if let slice {
            let limit = Int(clamping: slice.magnitude)
            if elements.count > limit {
                elements = slice >= 0 ? Array(elements.prefix(limit)) : Array(elements.suffix(limit))
            }
        }
        return value == .array(elements) ? .keep : .set(.array(elements))
    }

    /// `$position`: from the front when positive, from the end when negative, appending by default.
    private func insertionIndex(count: Int) -> Int {
        guard let position else { return count }
        let count64 = Int64(count)
        if position >= 0 { return Int(min(position, count64)) }
        return position.magnitude < UInt64(count) ? Int(count64 + position) : 0
    }
}
