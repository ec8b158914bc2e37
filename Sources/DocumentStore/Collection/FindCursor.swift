import BSON

/// The results of a `find`. They are read on the first `next()` as one consistent snapshot (writes
/// that happen while iterating neither duplicate nor skip documents), then handed out one by one.
public struct FindCursor: AsyncSequence, Sendable {
    public typealias Element = BSONDocument

    let collection: DocumentCollection
    let filter: BSONDocument
    let options: FindOptions

    public func makeAsyncIterator() -> Iterator {
        Iterator(cursor: self)
    }

    /// Every result.
    public func toArray() async throws -> [BSONDocument] {
        try await collection.findAll(filter, options: options)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let cursor: FindCursor
        var remaining: [BSONDocument]?

        init(cursor: FindCursor) { self.cursor = cursor }

        public mutating func next() async throws -> BSONDocument? {
            if remaining == nil { remaining = try await cursor.toArray().reversed() }
            return remaining?.popLast()
        }
    }
}
