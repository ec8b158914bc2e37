import BSON

/// A compiled aggregation expression (`"$field"`, `{"$concat": […]}`, `{"$cond": …}`, literals).
public struct Expression: Sendable {
    public init(_ expression: BSON) throws(StoreError) {
        throw .badValue("expressions are not implemented yet")
    }

    /// Evaluates against `root` (`$$ROOT`, and what `$field` paths read) with `$$name` variables.
    public func evaluate(_ root: BSONDocument, variables: [String: BSON] = [:]) throws(StoreError) -> BSON {
        .null
    }
}
