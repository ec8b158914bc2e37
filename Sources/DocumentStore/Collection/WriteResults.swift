import BSON

public struct InsertOneResult: Sendable, Equatable {
    public var insertedId: BSON
}

public struct InsertManyResult: Sendable, Equatable {
    /// The `_id` of each inserted document by its position in the input.
    public var insertedIds: [Int: BSON]
    public var insertedCount: Int { insertedIds.count }
}

public struct UpdateResult: Sendable, Equatable {
    public var matchedCount: Int
    /// Documents actually changed: an update that leaves a document as it was does not count.
    public var modifiedCount: Int
    public var upsertedId: BSON?
    public var upsertedCount: Int { upsertedId == nil ? 0 : 1 }
}

public struct DeleteResult: Sendable, Equatable {
    public var deletedCount: Int
}

public struct BulkWriteResult: Sendable, Equatable {
    public var insertedCount = 0
    public var matchedCount = 0
    public var modifiedCount = 0
    public var deletedCount = 0
    /// By the position of the write in the request.
    public var upsertedIds: [Int: BSON] = [:]
    public var insertedIds: [Int: BSON] = [:]
    public var upsertedCount: Int { upsertedIds.count }
}

/// One failed write of a bulk operation: its position in the request and the server-shaped error.
public struct WriteError: Sendable, Equatable {
    public var index: Int
    public var code: StoreError.Code
    public var errmsg: String
}

/// A bulk write (`insertMany`, `bulkWrite`) in which some writes failed. Ordered writes stop at the
/// first error; unordered ones go on and report every error. `result` counts what succeeded.
public struct BulkWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var writeErrors: [WriteError]
    public var result: BulkWriteResult

    public var description: String {
        "BulkWriteError: " + writeErrors.map { "#\($0.index): \($0.errmsg) (\($0.code))" }.joined(separator: "; ")
    }
}

/// One write of a `bulkWrite`.
public enum WriteModel: Sendable {
    case insertOne(BSONDocument)
    case updateOne(filter: BSONDocument, update: BSONDocument, upsert: Bool = false, arrayFilters: [BSONDocument] = [])
    case updateMany(filter: BSONDocument, update: BSONDocument, upsert: Bool = false, arrayFilters: [BSONDocument] = [])
    case replaceOne(filter: BSONDocument, replacement: BSONDocument, upsert: Bool = false)
    case deleteOne(filter: BSONDocument)
    case deleteMany(filter: BSONDocument)
}
