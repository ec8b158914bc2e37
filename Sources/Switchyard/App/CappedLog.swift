import BSON
import DocumentStore
import Foundation
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
    /// The log's order, kept in memory once a prune needed it, so that later prunes delete the oldest documents
    /// by `_id` instead of sorting the whole log every `pruneInterval` inserts.
    private let order = Mutex(LogOrder())

    init(collection: DocumentCollection, timeField: String, retention: Int, pruneInterval: Int = 100) {
        self.collection = collection
        self.timeField = timeField
        self.retention = max(1, retention)
        self.pruneInterval = max(1, pruneInterval)
    }

    private var newestFirst: BSONDocument { [timeField: -1, "_id": -1] }

    /// Brings a log of the earlier layout to this one (`CappedLog+Migrations.swift`), then prunes what an earlier
    /// run left beyond the retention.
    func prepare() async throws {
        try await dropEarlierLayoutIndex()
        try await prune()
    }

    /// Inserts `document` with the task's next write (`DocumentCollection.insertWithNextWrite`), then prunes once
    /// `pruneInterval` documents were written since the last prune. `committed` runs once the insert is committed.
    func insert(_ document: BSONDocument, committed: @escaping @Sendable () -> Void = {}) async throws {
        // Noted once committed, before pruning (even when the insert failed: a wrong count only makes the prune
        // read the order again), so that the prune finds its order complete.
        let key = LogOrder.Key(document, timeField: timeField)
        do {
            try await collection.insertWithNextWrite(document) { [self] in
                noteInserted(key)
                committed()
            }
        } catch {
            noteInserted(key)
            throw error
        }
        let count = insertsSincePrune.add(1, ordering: .relaxed).newValue
        if count >= pruneInterval {
            insertsSincePrune.store(0, ordering: .relaxed)
            // In writes of its own: the inserts still waiting for the task's next write are not the prune's.
            try await CarriedInserts.withoutCarrying { try await prune() }
        }
    }

    /// Deletes everything older than the newest `retention` documents.
    func prune() async throws {
        // Counting is cheap; knowing which documents are the oldest is not, so only go on when over.
        let count = try await collection.estimatedDocumentCount()
        guard count > retention else { return }
        // The order kept in memory when it accounts for every document (nothing else wrote to the log, no
        // insert is between its write and its note); otherwise the log's order is read again, once.
        var keys = order.withLock { $0.keys?.count == count ? $0.keys : nil } ?? []
        if keys.count != count {
            let documents = try await collection.find([:], options: FindOptions(projection: [timeField: 1]))
                .toArray()
            keys = documents.compactMap { LogOrder.Key($0, timeField: timeField) }
            guard keys.count == documents.count else { return try await pruneBySorting() }
            keys.sort()
        }
        let oldest = keys.prefix(max(0, keys.count - retention))
        _ = try await collection.deleteMany(["_id": ["$in": .array(oldest.map { .objectId($0.id) })]])
        let kept = Array(keys.dropFirst(oldest.count))
        order.withLock { order in
            // Documents noted meanwhile stay; had nothing been kept, the ones read are the order from now on.
            guard var current = order.keys else {
                order.keys = kept
                return
            }
            order.keys = nil  // `current` alone holds the keys now: edited in place.
            // The deleted ones are the oldest, so usually the order's first ones: dropped without a search.
            if current.starts(with: oldest) {
                current.removeFirst(oldest.count)
            } else {
                let deleted = Set(oldest.map(\.id))
                current.removeAll { deleted.contains($0.id) }
            }
            order.keys = current
        }
    }

    /// The general way, for a log holding documents this one did not write (no `_id`, or no time): finds the
    /// oldest document kept by sorting the log and deletes everything older.
    private func pruneBySorting() async throws {
        order.withLock { $0.keys = nil }
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

    /// Adds what was just written to the order kept in memory (a document it cannot place drops the order).
    private func noteInserted(_ key: LogOrder.Key?) {
        order.withLock { order in
            guard order.keys != nil else { return }
            guard let key else { return order.keys = nil }
            order.insert(key)
        }
    }

    /// The newest `limit` documents matching `filter`, oldest first (as a log is read).
    func latest(_ filter: BSONDocument, limit: Int) async throws -> [BSONDocument] {
        guard limit > 0 else { return [] }
        let options = FindOptions(sort: newestFirst, limit: limit)
        return try await collection.find(filter, options: options).toArray().reversed()
    }
}
