import BSON
import DocumentStore

/// What replaying a recording found, event by event: what the run did then (as recorded) and what the function
/// does now, on the same event and the same data.
public struct ReplayReport: Sendable {
    /// What one run did.
    public struct Run: Sendable, Equatable {
        public var outcome: InvocationRecord.Outcome
        public var error: String?
        public var logs: [String]
        /// The send requests (`{"message": …}`) of the messages the run sent, in order.
        public var messages: [BSONDocument]
        /// The changes the run made in log order, `{operationType, ns: {db, coll}, documentKey?, fullDocument?,
        /// updateDescription?, to?}`; nil for a recorded run whose writes the recording does not have (made before
        /// the data directory kept which run made a change, or a version 1 recording).
        public var writes: [BSONDocument]?

        public init(
            outcome: InvocationRecord.Outcome, error: String? = nil, logs: [String] = [], messages: [BSONDocument] = [],
            writes: [BSONDocument]? = nil
        ) {
            self.outcome = outcome
            self.error = error
            self.logs = logs
            self.messages = messages
            self.writes = writes
        }
    }

    /// What differs between then and now.
    public enum Difference: String, Sendable, Equatable {
        case outcome, error, messages, writes
    }

    /// One event: then against now.
    public struct Comparison: Sendable {
        /// The change event's resume token (`_id._data`): the invocation log's `eventId`.
        public var eventId: String
        public var operationType: ChangeEvent.OperationType
        public var namespace: Namespace?
        public var documentKey: BSONDocument?
        /// The first recorded attempt (replay runs a first attempt on the data it saw); nil when the invocation log
        /// held no run of it.
        public var then: Run?
        /// How many attempts were recorded.
        public var attemptsThen: Int
        public var now: Run

        /// Empty when the run did the same (or nothing was recorded to compare with: see `then`).
        public var differences: [Difference] {
            guard let then else { return [] }
            var found: [Difference] = []
            if then.outcome != now.outcome { found.append(.outcome) }
            if then.error != now.error { found.append(.error) }
            if then.messages != now.messages { found.append(.messages) }
            if let writes = then.writes, let nowWrites = now.writes,
                writes.map(Run.comparable) != nowWrites.map(Run.comparable)
            {
                found.append(.writes)
            }
            return found
        }
    }

    public var trigger: String
    public var function: String
    public var events: [Comparison]
    /// What the recording could not capture exactly (from its file).
    public var notes: [String]

    /// The events whose run did something else now.
    public var differences: [Comparison] { events.filter { !$0.differences.isEmpty } }
    /// The events with no recorded run to compare with.
    public var unrecorded: [Comparison] { events.filter { $0.then == nil } }
    /// The events whose run did the same.
    public var same: [Comparison] { events.filter { $0.then != nil && $0.differences.isEmpty } }

    /// `N events, S same, D different` (and how many had no recorded run).
    public var summary: String {
        let unrecorded = self.unrecorded.count
        return "\(events.count) event(s), \(same.count) same, \(differences.count) different"
            + (unrecorded == 0 ? "" : ", \(unrecorded) without a recorded run")
    }
}
