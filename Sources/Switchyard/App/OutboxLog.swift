import BSON
import DocumentStore
import Messaging

/// The push messages the development outbox accepted, kept in the store's `local.outbox` (not change-logged)
/// and followable live: what `switchyard outbox` and the dashboard show instead of real deliveries.
///
/// Keeps the newest `retention` entries (10,000 by default), pruned when the app opens and every 100 entries.
package final class OutboxLog: Sendable {
    package static let database = "local"
    package static let collection = "outbox"
    package static let defaultRetention = 10_000

    private let log: CappedLog
    private let feed = LiveFeed<OutboxEntry>()

    package init(store: DocumentStore, retention: Int = OutboxLog.defaultRetention) {
        log = CappedLog(
            collection: store.database(Self.database).collection(Self.collection), timeField: "time",
            retention: retention)
    }

    package func prepare() async throws {
        try await log.prepare()
    }

    /// Stores an entry and hands it to followers once it is committed: the `OutboxMessaging` sink. In a function
    /// run, the entry commits with the function's next write (`CarriedInserts`): a queue entry marked sent and the
    /// record of its send are kept or lost together.
    /// A send made within a function run carries the run's invocation id as `invocation` (`FunctionRunScope`).
    package func record(_ entry: OutboxEntry) async throws {
        var document: BSONDocument = ["_id": .objectId(ObjectId())]
        for (key, value) in entry.document { document.append(key, value) }
        if let run = FunctionRunScope.invocationId { document.append("invocation", .objectId(run)) }
        try await log.insert(document) { [feed] in feed.publish(entry) }
    }

    /// The newest `limit` entries, oldest first.
    package func entries(limit: Int = 100) async throws -> [OutboxEntry] {
        try await log.latest([:], limit: limit).map { document throws in try OutboxEntry(document: document) }
    }

    /// The send requests (`{"message": …}`) of the entries the runs `invocations` made, by run, oldest first.
    package func requests(ofInvocations invocations: [ObjectId]) async throws -> [ObjectId: [BSONDocument]] {
        var requests: [ObjectId: [BSONDocument]] = [:]
        // In slices: an `$in` of thousands of ids is one query of thousands of comparisons per entry otherwise.
        for start in stride(from: 0, to: invocations.count, by: 500) {
            let slice = invocations[start..<min(invocations.count, start + 500)]
            let filter: BSONDocument = ["invocation": ["$in": .array(slice.map { .objectId($0) })]]
            for document in try await log.latest(filter, limit: log.retention) {
                guard case .objectId(let run)? = document["invocation"],
                    case .document(let request)? = document["request"]
                else { continue }
                requests[run, default: []].append(request)
            }
        }
        return requests
    }

    /// Every entry recorded from now on, until the app stops or the follower stops iterating.
    package func follow() -> AsyncStream<OutboxEntry> {
        feed.follow()
    }

    func finish() {
        feed.finish()
    }
}
