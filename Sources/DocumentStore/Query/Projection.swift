import BSON

/// A `find` projection (`{"title": 1, "_id": 0}`, exclusions, `$slice`, `$elemMatch`, positional `$`).
public struct Projection: Sendable {
    public init(_ specification: BSONDocument) throws(StoreError) {
        throw .badValue("projections are not implemented yet")
    }

    public func apply(to document: BSONDocument, match: QueryMatch? = nil) throws(StoreError) -> BSONDocument {
        document
    }
}
