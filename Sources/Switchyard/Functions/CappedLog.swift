import BSON
import DocumentStore
import Synchronization

/// A collection used as a log that keeps its newest `retention` documents (by `timeField`, then `_id`):
/// older ones are pruned when the log is prepared and after every `pruneInterval` inserts, so the collection
/// holds at most `retention + pruneInterval` documents between prunes.
final class CappedLog: Sendable {
    let collection: DocumentCollection
    let timeField: String
    let retention: Int
    let pruneInterval: Int
    private let insertsSincePrune = Atomic(0)

    init(collection: DocumentCollection, timeField: String, retention: Int, pruneInterval: Int = 100) {
        self.collection = collection
        self.timeField = timeField
        self.retention = max(1, retention)
        self.pruneInterval = max(1, pruneInterval)
    }

    private var newestFirst: BSONDocument { [timeField: -1, "_id": -1] }

    /// Creates the index the queries use and prunes what an earlier run left beyond the retention.
    func prepare() async throws {
        _ = try await collection.createIndex([timeField: -1, "_id": -1])
        try await prune()
    }

    func insert(_ document: BSONDocument) async throws {
        _ = try await collection.insertOne(document)
        let count = insertsSincePrune.add(1, ordering: .relaxed).newValue
        if count >= pruneInterval {
            insertsSincePrune.store(0, ordering: .relaxed)
            try await prune()
        }
    }

    /// Deletes everything older than the newest `retention` documents.
    func prune() async throws {
        // Counting is cheap; finding the oldest document kept sorts the log, so only do it when over.
        guard try await collection.estimatedDocumentCount() > retention else { return }
        let options = FindOptions(projection: [timeField: 1], sort: newestFirst, skip: retention - 1, limit: 1)
        guard let oldestKept = try await collection.find([:], options: options).toArray().first,
            let time = oldestKept[timeField], let id = oldestKept["_id"]
        else { return }
        _ = try await collection.deleteMany([
            "$or": [
                [timeField: ["$lt": time]],
                [timeField: time, "_id": ["$lt": id]],
            ]
        ])
    }

    /// The newest `limit` documents matching `filter`, oldest first (as a log is read).
    func latest(_ filter: BSONDocument, limit: Int) async throws -> [BSONDocument] {
        guard limit > 0 else { return [] }
        let options = FindOptions(sort: newestFirst, limit: limit)
        return try await collection.find(filter, options: options).toArray().reversed()
    }
}
