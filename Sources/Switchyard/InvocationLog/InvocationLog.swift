import BSON
import DocumentStore
import Foundation
import Synchronization

/// Every function execution (trigger attempts and client calls), kept in the store's `local.invocations`
/// (`local` is not change-logged, so recording never fires triggers) and followable live.
///
/// Records are written in the background, many to a document (`InvocationPages`). The log keeps the newest
/// `retention` records (10,000 by default) and at most a tenth more: older ones are pruned as new ones are written.
/// Records the store cannot write for now (its disk is full) are kept in memory, up to `maximumUnwritten` (the
/// oldest dropped first, counted and reported), and written once it can.
package final class InvocationLog: Sendable {
    package static let database = "local"
    package static let collection = "invocations"
    package static let defaultRetention = 10_000
    package static let maximumUnwritten = 10_000

    private let pages: InvocationPages
    private let writer: WriteBehind<InvocationPages.Entry>
    private let feed = LiveFeed<InvocationRecord>()

    package init(store: DocumentStore, retention: Int = InvocationLog.defaultRetention) {
        let pages = InvocationPages(
            collection: store.database(Self.database).collection(Self.collection), retention: retention)
        self.pages = pages
        let namespace = pages.collection.namespace
        let refused = Atomic(false)
        writer = WriteBehind(
            maximumHeld: Self.maximumUnwritten,
            onDrop: { dropped, total in
                Self.report(
                    "dropped the \(dropped) oldest invocation record(s) the store could not write (\(total) in all)")
            }
        ) { batch in
            do {
                try await pages.write(batch)
                if refused.exchange(false, ordering: .relaxed) {
                    Self.report("wrote the invocation records kept while the store could not write them")
                }
                return .done
            } catch let error where StoreError.storageFailure(causing: error) != nil {
                if !refused.exchange(true, ordering: .relaxed), let failure = StoreError.storageFailure(causing: error)
                {
                    Self.report(
                        "could not write \(batch.count) record(s) to \(namespace) (\(failure.codeName)): kept in memory "
                            + "(up to \(Self.maximumUnwritten)) and written once the store can")
                }
                return .retryLater
            } catch {
                // The runs themselves are over; a log the store refused (it is closing) is reported where the
                // operator sees it rather than failing anything.
                Self.report("could not write \(batch.count) record(s) to \(namespace): \(error)")
                return .done
            }
        }
    }

    private static func report(_ message: String) {
        FileHandle.standardError.write(Data("switchyard: \(message)\n".utf8))
    }

    /// Records kept in memory because the store could not write them yet, and those dropped from that hold.
    package var unwrittenRecords: (kept: Int, dropped: Int) {
        let unwritten = writer.unwritten
        return (unwritten.held, unwritten.dropped)
    }

    /// Brings a log of the earlier layout to this one (`InvocationPages+Migrations.swift`).
    package func prepare() async throws {
        try await pages.prepare()
    }

    /// Hands a record to followers and queues it for the store, batched with others (a run does not wait for
    /// its record to be written unless thousands are waiting already; reads through this log see every record
    /// written before them, and a process killed with SIGKILL may lose those not written yet).
    nonisolated(nonsending) package func record(_ record: InvocationRecord) async {
        if let backlog = handOver(record) { await backlog.wait() }
    }

    /// Hands `record` to followers and the writer without waiting; when a lossless follower or the writer is far
    /// behind, what the caller must then wait for (it slows to their pace). Synchronous, for the call path, where
    /// each `await` costs a switch back to the caller's executor.
    func handOver(_ record: InvocationRecord) -> Backlog? {
        let followersFull = feed.publish(record)
        let written = writer.enqueue((record.encoded, BSONDate(record.start)))
        return followersFull || written != nil ? Backlog(log: self, written: written) : nil
    }

    /// What a run waits for after handing its record over to a log that is behind.
    struct Backlog {
        fileprivate let log: InvocationLog
        fileprivate let written: Int?

        nonisolated(nonsending) func wait() async {
            await log.feed.waitForFollowers()
            if let written { await log.writer.waitUntilWritten(written) }
        }
    }

    /// Waits until every record handed over so far is in the store (or kept in memory while the store cannot
    /// write it: kept records are tried once more first).
    package func flush() async {
        await writer.flush()
    }

    /// The newest `limit` records matching the filters, oldest first.
    /// - Parameters:
    ///   - trigger: only runs of this trigger.
    ///   - function: only runs of this function.
    ///   - since: only runs that started at or after this time.
    ///   - outcome: only runs that ended this way.
    ///   - until: only runs that started before this time.
    package func records(
        trigger: String? = nil, function: String? = nil, limit: Int = 100, since: Date? = nil,
        outcome: InvocationRecord.Outcome? = nil, until: Date? = nil
    ) async throws -> [InvocationRecord] {
        await writer.flush()
        let filter = InvocationFilter(
            trigger: trigger, function: function, outcome: outcome, since: since, until: until)
        return try await pages.latest(filter, limit: limit)
    }

    /// Every record written from now on, until the app stops or the follower stops iterating.
    package func follow() -> AsyncStream<InvocationRecord> {
        feed.follow()
    }

    /// Every record written from now on, in batches, in the order they were recorded, none lost: what a follower
    /// that must print every run uses (runs wait for it when it falls thousands of records behind).
    package func followBatches() -> FeedBatches<InvocationRecord> {
        feed.followBatches()
    }

    /// Ends every follower's stream.
    func finish() {
        feed.finish()
    }
}
