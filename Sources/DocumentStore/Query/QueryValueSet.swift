import BSON

/// The operand of `$in`/`$nin`: values kept sorted in MongoDB's order for binary search (so `1`, `1.0` and
/// `1L` are one value), plus regular expressions. A null in the list also matches missing values.
struct QueryValueSet: Sendable {
    let values: [BSON]
    let regexes: [QueryRegex]
    let containsNull: Bool

    init(_ elements: [BSON]) throws(StoreError) {
        var values: [BSON] = []
        var regexes: [QueryRegex] = []
        for element in elements {
            switch element {
            case .regex(let regex):
                regexes.append(try QueryRegex(regex))
            case .undefined:
                throw .badValue("InMatchExpression equality cannot be undefined")
            case .document(let document) where QueryFilter.isOperatorDocument(document):
                throw .badValue("cannot nest $ under $in")
            default:
                values.append(element)
            }
        }
        self.values = values.sorted { BSON.compare($0, $1) < 0 }
        self.regexes = regexes
        containsNull = values.contains(.null)
    }

    func contains(_ value: BSON?) throws(StoreError) -> Bool {
        guard let value else { return containsNull }
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            let order = BSON.compare(values[middle], value)
            if order == 0 { return true }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        for regex in regexes where try regex.matches(value) { return true }
        return false
    }
}
