import BSON
import DocumentStore
import Foundation

/// What a database trigger received over a time window, with the data its function read: the store as it was
/// when the window started (`snapshot`), then every change logged in the window in order (`changes`), those
/// the trigger took with the event its function received and the runs recorded for it. `switchyard record`
/// writes one, `switchyard replay` and `TestApp.replay` run its events again (`TriggerReplay`).
package struct TriggerRecording: Sendable {
    package static let format = "switchyard-trigger-recording"
    /// Version 2 has each run's writes; version 1 files (without them) are read too.
    package static let version = 2
    package static let readableVersions: ClosedRange<Int64> = 1...2

    /// One recorded run of the trigger's function on an event (one attempt).
    package struct Run: Sendable, Equatable {
        package var id: ObjectId
        package var attempt: Int
        package var start: Date
        package var duration: Duration
        package var outcome: InvocationRecord.Outcome
        package var error: String?
        package var logs: [String]
        /// The send requests (`{"message": …}`) of the outbox entries that carry the run's invocation id.
        package var messages: [BSONDocument]
        /// The changes the run made, in log order (`ChangeEvent.runWrite`: operation, namespace, document key, the
        /// document or update written), from the change-log entries its writes were tagged in; nil when the log
        /// cannot say (entries of a store from before it kept tags, or a version 1 recording).
        package var writes: [BSONDocument]?

        package init(_ record: InvocationRecord, messages: [BSONDocument], writes: [BSONDocument]? = nil) {
            id = record.id
            attempt = record.attempt
            start = record.start
            duration = record.duration
            outcome = record.outcome
            error = record.error
            logs = record.logs
            self.messages = messages
            self.writes = writes
        }
    }

    /// One logged change of the window.
    package struct Change: Sendable {
        /// The change as the log holds it, with its pre-image where the collection keeps them.
        package var change: ChangeEvent
        /// The event the trigger's function received (after its route's lookup, `match` and `project`); nil when
        /// the trigger does not take this change.
        package var delivered: ChangeEvent?
        /// The runs recorded for `delivered`, by attempt; empty when the invocation log holds none.
        package var runs: [Run]

        package init(change: ChangeEvent, delivered: ChangeEvent? = nil, runs: [Run] = []) {
            self.change = change
            self.delivered = delivered
            self.runs = runs
        }
    }

    /// The documents of one collection.
    package struct Collection: Sendable {
        package var namespace: Namespace
        package var documents: [BSONDocument]

        package init(namespace: Namespace, documents: [BSONDocument]) {
            self.namespace = namespace
            self.documents = documents
        }
    }

    package var trigger: String
    package var function: String
    package var since: Date?
    package var until: Date?
    package var recordedAt: Date
    /// What the recording could not capture exactly (documents it could not take back to the window's start).
    package var notes: [String]
    package var snapshot: [Collection]
    package var changes: [Change]

    package init(
        trigger: String, function: String, since: Date?, until: Date?, recordedAt: Date = Date(),
        notes: [String] = [], snapshot: [Collection] = [], changes: [Change] = []
    ) {
        self.trigger = trigger
        self.function = function
        self.since = since
        self.until = until
        self.recordedAt = recordedAt
        self.notes = notes
        self.snapshot = snapshot
        self.changes = changes
    }

    /// How many events the trigger took.
    package var eventCount: Int { changes.count { $0.delivered != nil } }
}
