import BSON

/// A compiled update: operators (`$set`, `$push`, …) or a replacement document.
public struct UpdateSpecification: Sendable {
    public init(_ update: BSONDocument, arrayFilters: [BSONDocument] = []) throws(StoreError) {
        throw .badValue("updates are not implemented yet")
    }

    /// True when the update is a replacement document rather than operators.
    public var isReplacement: Bool { false }

    /// Applies the update to `document`. `match` carries the array position for positional `$`;
    /// `isInsert` is true when an upsert inserts (so `$setOnInsert` applies).
    public func apply(to document: BSONDocument, match: QueryMatch? = nil, isInsert: Bool = false)
        throws(StoreError) -> BSONDocument
    {
        document
    }
}
