import BSON
import DocumentStore
import Foundation

/// Every function execution (trigger attempts and client calls), kept in the store's `local.invocations`
/// (`local` is not change-logged, so recording never fires triggers) and followable live.
///
/// The log keeps the newest `retention` records (10,000 by default): older ones are pruned when the app
/// opens and after every `pruneInterval(retention:)` records (a tenth of the retention, at least 100), so it
/// holds at most `retention + pruneInterval(retention:)` between prunes.
public final class InvocationLog: Sendable {
    public static let database = "local"
    public static let collection = "invocations"
    public static let defaultRetention = 10_000

    private let log: CappedLog
    private let feed = LiveFeed<InvocationRecord>()

    public init(store: DocumentStore, retention: Int = InvocationLog.defaultRetention) {
        log = CappedLog(
            collection: store.database(Self.database).collection(Self.collection), timeField: "start",
            retention: retention, pruneInterval: Self.pruneInterval(retention: retention))
    }

    /// Records written between prunes: each prune counts the log and deletes what is over, so pruning in strides
    /// proportional to the retention keeps its cost per record small, for at most a tenth more records kept.
    public static func pruneInterval(retention: Int) -> Int {
        max(100, retention / 10)
    }

    /// Creates the log's index and prunes records beyond the retention.
    public func prepare() async throws {
        try await log.prepare()
    }

    /// Hands a record to followers and queues it for the store, batched with others (a run does not wait for
    /// its record to be written unless thousands are waiting already; reads through this log see every record
    /// written before them, and a process killed with SIGKILL may lose those not written yet).
    public func record(_ record: InvocationRecord) async {
        if feed.publish(record) { await feed.waitForFollowers() }
        await log.append(record.encoded, time: BSONDate(record.start))
    }

    /// Waits until every record handed over so far is in the store.
    public func flush() async {
        await log.flush()
    }

    /// The newest `limit` records matching the filters, oldest first.
    /// - Parameters:
    ///   - trigger: only runs of this trigger.
    ///   - function: only runs of this function.
    ///   - since: only runs that started at or after this time.
    ///   - outcome: only runs that ended this way.
    ///   - until: only runs that started before this time.
    public func records(
        trigger: String? = nil, function: String? = nil, limit: Int = 100, since: Date? = nil,
        outcome: InvocationRecord.Outcome? = nil, until: Date? = nil
    ) async throws -> [InvocationRecord] {
        var filter: BSONDocument = [:]
        if let trigger { filter.append("trigger", .string(trigger)) }
        if let function { filter.append("function", .string(function)) }
        if let outcome { filter.append("outcome", .string(outcome.rawValue)) }
        var start: BSONDocument = [:]
        if let since { start.append("$gte", .datetime(BSONDate(since))) }
        if let until { start.append("$lt", .datetime(BSONDate(until))) }
        if !start.isEmpty { filter.append("start", .document(start)) }
        await log.flush()
        return try await log.latest(filter, limit: limit).map { document throws in
            try InvocationRecord(document: document)
        }
    }

    /// Every record written from now on, until the app stops or the follower stops iterating.
    public func follow() -> AsyncStream<InvocationRecord> {
        feed.follow()
    }

    /// Every record written from now on, in batches, in the order they were recorded, none lost: what a follower
    /// that must print every run uses (runs wait for it when it falls thousands of records behind).
    public func followBatches() -> FeedBatches<InvocationRecord> {
        feed.followBatches()
    }

    /// Ends every follower's stream.
    func finish() {
        feed.finish()
    }
}
