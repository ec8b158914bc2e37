import BSON

/// Options of `find`: MongoDB's `projection`, `sort`, `skip`, `limit`, `batchSize` and `maxTimeMS`.
public struct FindOptions: Sendable {
    public var projection: BSONDocument?
    public var sort: BSONDocument?
    public var skip: Int
    /// 0 means no limit, as in MongoDB.
    public var limit: Int
    /// Accepted for driver compatibility; a cursor reads its results as one snapshot.
    public var batchSize: Int
    /// How long the read may take (MongoDB's `maxTimeMS`), counted from the call; past it the read fails with
    /// `MaxTimeMSExpired`. Nil: no limit.
    public var maxTime: Duration?

    public init(
        projection: BSONDocument? = nil, sort: BSONDocument? = nil, skip: Int = 0, limit: Int = 0, batchSize: Int = 101,
        maxTime: Duration? = nil
    ) {
        self.projection = projection
        self.sort = sort
        self.skip = skip
        self.limit = limit
        self.batchSize = batchSize
        self.maxTime = maxTime
    }
}

/// Whether `findOneAnd…` returns the document as it was before or after the write.
public enum ReturnDocument: Sendable {
    case before, after
}

/// Options of `findOneAndUpdate` / `findOneAndReplace`.
public struct FindOneAndModifyOptions: Sendable {
    public var sort: BSONDocument?
    public var projection: BSONDocument?
    public var returnDocument: ReturnDocument
    public var upsert: Bool
    public var arrayFilters: [BSONDocument]

    public init(
        sort: BSONDocument? = nil, projection: BSONDocument? = nil, returnDocument: ReturnDocument = .before,
        upsert: Bool = false, arrayFilters: [BSONDocument] = []
    ) {
        self.sort = sort
        self.projection = projection
        self.returnDocument = returnDocument
        self.upsert = upsert
        self.arrayFilters = arrayFilters
    }
}

/// Options of `createCollection`.
public struct CreateCollectionOptions: Sendable {
    /// Record pre- and post-images so change streams can report `fullDocumentBeforeChange` and
    /// (with `fullDocument: whenAvailable|required`) post-images of updates.
    public var changeStreamPreAndPostImages: Bool

    public init(changeStreamPreAndPostImages: Bool = false) {
        self.changeStreamPreAndPostImages = changeStreamPreAndPostImages
    }
}

/// What `explain` reports about how a query ran.
public struct QueryExplanation: Sendable, Equatable {
    /// `COLLSCAN`, `IDHACK` (an `_id` lookup) or `IXSCAN`.
    public var stage: String
    public var indexName: String?
    public var keysExamined: Int
    public var documentsExamined: Int
    public var returned: Int
}
