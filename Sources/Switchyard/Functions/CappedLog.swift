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
    /// Documents `append`ed and not yet taken by the drain; appending takes no lock (every function run does).
    private let pending = AppendList<(document: EncodedDocument, key: LogOrder.Key)>()
    /// Counted before each document joins `pending`, so a flush that reads it waits for every append that
    /// returned before it.
    private let appended = Atomic(0)
    /// Whether a drain task runs; the appender that sets it starts one.
    private let draining = Atomic(false)
    private let progress = Mutex(Progress())
    /// `progress.written`, readable without the lock: every append compares it with its position.
    private let written = Atomic(0)
    /// Unwritten documents beyond which `append` waits for the drain.
    let maximumBacklog: Int
    /// Taken by the drain after each batch while nobody waits for it, so that busy logs write in fewer, larger
    /// batches and the drain is not woken for every document.
    private let pause: BatchPause
    /// The log's order, kept in memory once a prune needed it, so that later prunes delete the oldest documents
    /// by `_id` instead of sorting the whole log (which every prune did, every `pruneInterval` inserts).
    private let order = Mutex(LogOrder())

    /// How many appended documents the drain has written, and who waits for more.
    private struct Progress {
        var written = 0
        var waiters: [(upTo: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    init(
        collection: DocumentCollection, timeField: String, retention: Int, pruneInterval: Int = 100,
        maximumBacklog: Int = 4096, batchInterval: Duration = .milliseconds(5)
    ) {
        self.collection = collection
        self.maximumBacklog = max(1, maximumBacklog)
        self.timeField = timeField
        self.retention = max(1, retention)
        self.pruneInterval = max(1, pruneInterval)
        pause = BatchPause(duration: batchInterval)
    }

    private var newestFirst: BSONDocument { [timeField: -1, "_id": -1] }

    /// Prunes what an earlier run left beyond the retention.
    ///
    /// The log keeps no index of its own: the store sorts a query's matches in memory and plans no range on a
    /// descending index, so the `{time: -1, _id: -1}` index earlier versions made served no query and cost every
    /// record two index writes (its insert and its prune). One left by such a version is dropped.
    func prepare() async throws {
        let unused: BSONDocument = [timeField: -1, "_id": -1]
        let indexes: [BSONDocument]
        do {
            indexes = try await collection.listIndexes()
        } catch let error as StoreError where error.code == 26 {
            indexes = []  // no collection yet: a new log
        }
        for index in indexes where index["key"]?.documentValue == unused {
            if let name = index["name"]?.stringValue { try await collection.dropIndex(name) }
        }
        try await prune()
    }

    func insert(_ document: BSONDocument) async throws {
        try await write([document])
    }

    /// Inserts `documents` (one insert), pruning once `pruneInterval` of them have been written since the last.
    private func write(_ documents: [BSONDocument]) async throws {
        try await recording(documents.map { LogOrder.Key($0, timeField: timeField) }) {
            if documents.count == 1 {
                _ = try await collection.insertOne(documents[0])
            } else {
                _ = try await collection.insertMany(documents, ordered: false)
            }
        }
    }

    /// The same for appended documents, which go in as they were encoded.
    private func write(_ batch: [(document: EncodedDocument, key: LogOrder.Key)]) async throws {
        try await recording(batch.map(\.key)) { try await collection.insertMany(encoded: batch.map(\.document)) }
    }

    /// Runs `insert` of the documents with `keys`, then prunes once `pruneInterval` documents were written since
    /// the last prune.
    private func recording(_ keys: [LogOrder.Key?], _ insert: () async throws -> Void) async throws {
        // Noted before pruning (even when the insert failed: a wrong count only makes the prune read the order
        // again), so that the prune finds its order complete.
        do {
            try await insert()
        } catch {
            noteInserted(keys)
            throw error
        }
        noteInserted(keys)
        let count = insertsSincePrune.add(keys.count, ordering: .relaxed).newValue
        if count >= pruneInterval {
            insertsSincePrune.store(0, ordering: .relaxed)
            try await prune()
        }
    }

    /// Queues `document` to be written in the background, with others appended meanwhile in one insert: for
    /// logs whose writers must not wait for the store (every function call records a run). A busy log is written
    /// every `batchInterval` or so; `flush()` waits for (and hurries) the drain.
    ///
    /// It returns at once unless more than `maximumBacklog` documents are still unwritten: then it waits until
    /// the drain is back under that bound, so that writers faster than the store slow to its pace instead of
    /// queueing without end.
    /// - Parameter time: the document's `timeField`, where the log's order reads it.
    func append(_ document: EncodedDocument, time: BSONDate) async {
        let position = appended.add(1, ordering: .sequentiallyConsistent).newValue
        pending.append((document, LogOrder.Key(time: time, id: document.id)))
        // Usually a drain runs already: reading the flag costs less than exchanging it.
        if !draining.load(ordering: .sequentiallyConsistent),
            !draining.exchange(true, ordering: .sequentiallyConsistent)
        {
            Task { await drain() }
        }
        if position - written.load(ordering: .relaxed) > maximumBacklog {
            await waitUntilWritten(position - maximumBacklog)
        }
    }

    /// Waits until everything appended before the call is written (or failed to be, which is reported).
    func flush() async {
        await waitUntilWritten(appended.load(ordering: .sequentiallyConsistent))
    }

    /// Waits until the drain has written `target` documents in all.
    private func waitUntilWritten(_ target: Int) async {
        await withCheckedContinuation { continuation in
            let done = progress.withLock { progress -> Bool in
                guard progress.written < target else { return true }
                progress.waiters.append((target, continuation))
                return false
            }
            if done { continuation.resume() } else { pause.cutShort() }
        }
    }

    private func drain() async {
        while true {
            let batch = pending.takeAll()
            guard !batch.isEmpty else {
                draining.store(false, ordering: .sequentiallyConsistent)
                // An append that saw this drain still running left its document for it: take it up again.
                if !pending.isEmpty, !draining.exchange(true, ordering: .sequentiallyConsistent) { continue }
                return
            }
            do {
                try await write(batch)
            } catch {
                // The runs themselves are over; a log the store refused (it is closing) is reported where the
                // operator sees it rather than failing anything.
                FileHandle.standardError.write(
                    Data(
                        "switchyard: could not write \(batch.count) record(s) to \(collection.namespace): \(error)\n"
                            .utf8))
            }
            let ready = progress.withLock { progress -> [CheckedContinuation<Void, Never>] in
                progress.written += batch.count
                written.store(progress.written, ordering: .relaxed)
                let ready = progress.waiters.filter { $0.upTo <= progress.written }.map(\.continuation)
                progress.waiters.removeAll { $0.upTo <= progress.written }
                return ready
            }
            for continuation in ready { continuation.resume() }
            if progress.withLock({ $0.waiters.isEmpty }) { await pause.pause() }
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
    private func noteInserted(_ keys: [LogOrder.Key?]) {
        order.withLock { order in
            guard order.keys != nil else { return }
            for key in keys {
                guard let key else {
                    order.keys = nil
                    return
                }
                order.insert(key)
            }
        }
    }

    /// The newest `limit` documents matching `filter`, oldest first (as a log is read).
    func latest(_ filter: BSONDocument, limit: Int) async throws -> [BSONDocument] {
        guard limit > 0 else { return [] }
        let options = FindOptions(sort: newestFirst, limit: limit)
        return try await collection.find(filter, options: options).toArray().reversed()
    }
}
