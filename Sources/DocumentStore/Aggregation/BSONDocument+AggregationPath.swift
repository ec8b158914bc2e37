import BSON

/// Paths as aggregation stages read and write them: through documents only (a numeric component is a field
/// name, never an array index).
extension BSONDocument {
    func aggregationValue(at path: ArraySlice<String>) -> BSON? {
        guard let first = path.first, let value = self[first] else { return nil }
        let rest = path.dropFirst()
        if rest.isEmpty { return value }
        guard case .document(let child) = value else { return nil }
        return child.aggregationValue(at: rest)
    }

    /// Sets the value at `path`, replacing anything on the way that is not a document by a document.
    mutating func setAggregationValue(_ value: BSON, at path: ArraySlice<String>) {
        guard let first = path.first else { return }
        let rest = path.dropFirst()
        if rest.isEmpty {
            self[first] = value
            return
        }
        var child = self[first]?.documentValue ?? BSONDocument()
        self[first] = .null  // release the copy so the child is mutated uniquely
        child.setAggregationValue(value, at: rest)
        self[first] = .document(child)
    }
}

/// Splits `a.b.c` into components, refusing empty ones and `$`-prefixed ones.
func aggregationPath(_ text: String, stage: String) throws(StoreError) -> [String] {
    let components = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    do {
        try ExpressionNode.validatePathComponents(components)
    } catch {
        throw .location(error.code, "\(stage): \(error.message) (in '\(text)')")
    }
    return components
}
