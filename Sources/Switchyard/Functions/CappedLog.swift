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
    private let queue = Mutex(Queue())

    /// Documents `append`ed and not yet written, and who waits for them.
    private struct Queue {
        var documents: [BSONDocument] = []
        var draining = false
        var appended = 0
        var written = 0
        var waiters: [(upTo: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

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

    /// Queues `document` to be written in the background, with others appended meanwhile in one insert: for
    /// logs whose writers must not wait for the store (every function call records a run). `flush()` waits.
    func append(_ document: BSONDocument) {
        let startDraining = queue.withLock { queue -> Bool in
            queue.documents.append(document)
            queue.appended += 1
            guard !queue.draining else { return false }
            queue.draining = true
            return true
        }
        if startDraining { Task { await drain() } }
    }

    /// Waits until everything appended before the call is written (or failed to be, which is reported).
    func flush() async {
        await withCheckedContinuation { continuation in
            let done = queue.withLock { queue -> Bool in
                guard queue.written < queue.appended else { return true }
                queue.waiters.append((queue.appended, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func drain() async {
        while true {
            let batch = queue.withLock { queue -> [BSONDocument] in
                defer { queue.documents = [] }
                if queue.documents.isEmpty { queue.draining = false }
                return queue.documents
            }
            guard !batch.isEmpty else { return }
            do {
                _ = try await collection.insertMany(batch, ordered: false)
                let count = insertsSincePrune.add(batch.count, ordering: .relaxed).newValue
                if count >= pruneInterval {
                    insertsSincePrune.store(0, ordering: .relaxed)
                    try await prune()
                }
            } catch {
                // The runs themselves are over; a log the store refused (it is closing) is reported where the
                // operator sees it rather than failing anything.
                FileHandle.standardError.write(
                    Data(
                        "switchyard: could not write \(batch.count) record(s) to \(collection.namespace): \(error)\n"
                            .utf8))
            }
            let ready = queue.withLock { queue -> [CheckedContinuation<Void, Never>] in
                queue.written += batch.count
                let ready = queue.waiters.filter { $0.upTo <= queue.written }.map(\.continuation)
                queue.waiters.removeAll { $0.upTo <= queue.written }
                return ready
            }
            for continuation in ready { continuation.resume() }
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
