import BSON

/// A sort specification (`{"date": -1, "_id": 1}`) with MongoDB's rules for arrays and missing fields.
public struct SortSpecification: Sendable {
    public init(_ specification: BSONDocument) throws(StoreError) {
        throw .badValue("sorting is not implemented yet")
    }

    /// Negative, zero or positive as `lhs` sorts before, with, or after `rhs`.
    public func compare(_ lhs: BSONDocument, _ rhs: BSONDocument) -> Int { 0 }
}
