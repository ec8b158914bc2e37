import BSON

/// A compiled MongoDB query filter (`{"favoriteBooks": id, "age": {"$gte": 18}}`).
public struct QueryFilter: Sendable {
    public init(_ filter: BSONDocument) throws(StoreError) {
        throw .badValue("query filters are not implemented yet")
    }

    /// The match, or nil when the document does not match. The match carries the array position that the
    /// positional update operator `$` refers to.
    public func match(_ document: BSONDocument) -> QueryMatch? { nil }

    public func matches(_ document: BSONDocument) -> Bool { match(document) != nil }
}

/// What a successful match learned on the way.
public struct QueryMatch: Sendable, Equatable {
    /// Index of the first array element matched, for the positional `$` update operator.
    public var arrayPosition: Int?

    public init(arrayPosition: Int? = nil) { self.arrayPosition = arrayPosition }
}
