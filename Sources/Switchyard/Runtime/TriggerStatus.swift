import BSON
import Foundation

/// One trigger as the runtime sees it: what the CLI's `triggers` command and the admin API show.
package struct TriggerStatus: Sendable, Equatable {
    package enum State: String, Sendable {
        /// Consuming events (or waiting for the next fire time).
        case running
        /// Stopped by a failure or by request; `resume` starts it again.
        case suspended
        /// `disabled: true` in its definition: never started.
        case disabled
        /// Not running because the runtime is stopped (or the store closed under it).
        case stopped
        /// Run by another node on the store's shared database (`node`), which holds its lease: this node takes it
        /// over if that one stops or fails.
        case standby
    }

    package var name: String
    /// `database`, `scheduled` or `authentication`.
    package var type: String
    package var function: String
    package var state: State
    /// Database triggers: how events reach the function (`ordered`, `unordered` or `byDocumentKey`, with its
    /// `maxConcurrency`).
    package var ordering: DeliveryOrder?
    /// The last event the trigger finished (its resume token's `_data`, a schedule time, an auth event id).
    package var lastEventId: String?
    /// When that event happened (the change's wall time, the scheduled time, the auth event's time).
    package var lastEventTime: Date?
    /// When its function finished.
    package var lastProcessedAt: Date?
    /// Database triggers: the cluster time of the last event it finished.
    package var lastClusterTime: BSONTimestamp?
    /// When the trigger last showed it works, on the runtime's clock: now for a running trigger with nothing to
    /// do (caught up, or waiting for its fire time), else the last time it read, began or finished an event. Nil
    /// while it does not run.
    package var heartbeat: Date?
    /// Database triggers: how long the oldest of its pending events has waited (0 with none pending).
    package var lagSeconds: Double?
    /// The change-log entries skipped the last time its resume point had left the log (`tolerateResumeErrors`).
    package var resumeGap: TriggerResumeGap?
    /// Database triggers: change-log entries after the saved resume token that the trigger receives (its
    /// namespace, operation types and `match`), judged over the first `TriggerRuntime.pendingScanLimit` (256)
    /// entries; every entry past those counts, so a large backlog shows as an upper bound.
    package var pendingLogEntries: Int?
    /// Functions finished, attempts that failed, events given up on into the dead-letter queue.
    package var processed: Int
    package var failedAttempts: Int
    package var deadLettered: Int
    /// Events being delivered right now.
    package var inFlight: Int
    package var suspension: TriggerSuspension?
    /// Whether the trigger's state (its suspension and resume token) is in memory only: the store's storage refused
    /// its last save (a full disk). It is saved once storage works; a restart before that forgets it.
    package var isInMemoryOnly: Bool
    /// Things the runtime worked around (a lost resume point tolerated, pre-images unavailable), newest last.
    package var warnings: [String]
    /// On a database several nodes share: the node that holds the trigger's lease and runs it (`serve --node-name`).
    package var node: String?

    /// A status as someone else reported it (a running server's admin API).
    package init(
        name: String, type: String, function: String, state: State, ordering: DeliveryOrder? = nil,
        lastEventId: String? = nil, lastEventTime: Date? = nil, lastProcessedAt: Date? = nil,
        lastClusterTime: BSONTimestamp? = nil, heartbeat: Date? = nil, lagSeconds: Double? = nil,
        resumeGap: TriggerResumeGap? = nil, pendingLogEntries: Int? = nil, processed: Int = 0,
        failedAttempts: Int = 0, deadLettered: Int = 0, inFlight: Int = 0, suspension: TriggerSuspension? = nil,
        isInMemoryOnly: Bool = false, warnings: [String] = [], node: String? = nil
    ) {
        self.name = name
        self.type = type
        self.function = function
        self.state = state
        self.ordering = ordering
        self.lastEventId = lastEventId
        self.lastEventTime = lastEventTime
        self.lastProcessedAt = lastProcessedAt
        self.lastClusterTime = lastClusterTime
        self.heartbeat = heartbeat
        self.lagSeconds = lagSeconds
        self.resumeGap = resumeGap
        self.pendingLogEntries = pendingLogEntries
        self.processed = processed
        self.failedAttempts = failedAttempts
        self.deadLettered = deadLettered
        self.inFlight = inFlight
        self.suspension = suspension
        self.isInMemoryOnly = isInMemoryOnly
        self.warnings = warnings
        self.node = node
    }
}
