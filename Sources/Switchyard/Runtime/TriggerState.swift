import BSON
import DocumentStore
import Foundation

/// What the runtime remembers about one trigger across restarts, kept as one document in
/// `local.triggerState` and rewritten after the events the trigger finished (paced: see `TriggerProgress`).
struct TriggerState: Sendable, Equatable {
    var name: String
    /// The trigger's identity (`TriggerDefinition.identity`); state under another identity is discarded.
    var identity: String
    /// Database triggers: the change-log sequence to resume after (every event at or before it is done).
    var position: Int64?
    /// Scheduled triggers: the last fire time handled (or the time the trigger was first started).
    var lastFireTime: Date?
    var suspension: TriggerSuspension?
    var lastEventId: String?
    var lastEventTime: Date?
    var lastProcessedAt: Date?
    /// Database triggers: the cluster time of the last event finished.
    var lastClusterTime: BSONTimestamp?
    /// Database triggers that tolerate resume errors: the change-log entries skipped the last time the resume
    /// point had left the log.
    var resumeGap: TriggerResumeGap?
    var processed = 0
    var failedAttempts = 0
    var deadLettered = 0
    var warnings: [String] = []
    /// The node that holds the trigger's lease and runs it (`TriggerRuntimeConfiguration.node`), when the store's
    /// database is shared by several; written by that node when it takes the trigger over.
    var node: String?

    init(name: String, identity: String) {
        self.name = name
        self.identity = identity
    }

    /// The most recent warnings kept; older ones are dropped.
    static let warningLimit = 20

    /// Adds a warning unless the same one is already listed.
    mutating func warn(_ message: String) {
        guard !warnings.contains(message) else { return }
        warnings.append(message)
        if warnings.count > Self.warningLimit { warnings.removeFirst(warnings.count - Self.warningLimit) }
    }
}

/// Why a trigger stopped consuming events: until someone resumes it, or, when the store's storage failed under it
/// (a full disk, an I/O error), until storage works again.
package struct TriggerSuspension: Sendable, Equatable {
    package var reason: String
    /// The error code when the cause was a store error (`.changeStreamHistoryLost` when its resume token had
    /// left the change log).
    package var code: StoreError.Code?
    /// The event whose delivery failed, when that was the cause.
    package var failedEventId: String?
    package var time: Date

    package init(reason: String, code: StoreError.Code? = nil, failedEventId: String? = nil, time: Date) {
        self.reason = reason
        self.code = code
        self.failedEventId = failedEventId
        self.time = time
    }

    /// Whether the cause was the store's storage failing (its code is a storage failure's): the trigger tries
    /// again by itself, with backoff, and goes on from its saved resume token once storage works.
    package var resumesWhenStorageReturns: Bool {
        code.map(StoreError.isStorageFailure(code:)) ?? false
    }
}

extension TriggerState {
    var document: BSONDocument {
        var document: BSONDocument = ["_id": .string(name), "identity": .string(identity)]
        if let position { document.append("position", .int64(position)) }
        if let lastFireTime { document.append("lastFireTime", .date(lastFireTime)) }
        if let suspension {
            var suspended: BSONDocument = ["reason": .string(suspension.reason), "time": .date(suspension.time)]
            if let code = suspension.code { suspended.append("code", .int64(Int64(code.rawValue))) }
            if let id = suspension.failedEventId { suspended.append("failedEventId", .string(id)) }
            document.append("suspension", .document(suspended))
        }
        if let lastEventId { document.append("lastEventId", .string(lastEventId)) }
        if let lastEventTime { document.append("lastEventTime", .date(lastEventTime)) }
        if let lastProcessedAt { document.append("lastProcessedAt", .date(lastProcessedAt)) }
        if let lastClusterTime { document.append("lastClusterTime", .timestamp(lastClusterTime)) }
        if let resumeGap { document.append("resumeGap", .document(resumeGap.document)) }
        document.append("processed", .int64(Int64(processed)))
        document.append("failedAttempts", .int64(Int64(failedAttempts)))
        document.append("deadLettered", .int64(Int64(deadLettered)))
        document.append("warnings", .array(warnings.map { .string($0) }))
        if let node { document.append("node", .string(node)) }
        return document
    }

    /// Reads a stored state; nil when the document is not one (written by something else).
    init?(document: BSONDocument) {
        guard let name = document["_id"]?.stringValue, let identity = document["identity"]?.stringValue else {
            return nil
        }
        self.init(name: name, identity: identity)
        position = document["position"]?.int64Value
        lastFireTime = document["lastFireTime"]?.dateValue
        if let suspended = document["suspension"]?.documentValue, let reason = suspended["reason"]?.stringValue {
            suspension = TriggerSuspension(
                reason: reason,
                code: suspended["code"]?.int64Value.map { StoreError.Code(rawValue: Int(clamping: $0)) },
                failedEventId: suspended["failedEventId"]?.stringValue,
                time: suspended["time"]?.dateValue ?? Date(timeIntervalSince1970: 0))
        }
        lastEventId = document["lastEventId"]?.stringValue
        lastEventTime = document["lastEventTime"]?.dateValue
        lastProcessedAt = document["lastProcessedAt"]?.dateValue
        if case .timestamp(let time)? = document["lastClusterTime"] { lastClusterTime = time }
        resumeGap = document["resumeGap"]?.documentValue.flatMap(TriggerResumeGap.init(document:))
        processed = Int(clamping: document["processed"]?.int64Value ?? 0)
        failedAttempts = Int(clamping: document["failedAttempts"]?.int64Value ?? 0)
        deadLettered = Int(clamping: document["deadLettered"]?.int64Value ?? 0)
        warnings = document["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        node = document["node"]?.stringValue
    }
}

/// What a trigger that tolerates resume errors skipped when its resume point had left the change log: it
/// restarted from the log's end, so the entries after its saved position up to there were not delivered.
package struct TriggerResumeGap: Sendable, Equatable {
    /// The saved position that could not be resumed after (every entry up to it was finished).
    package var after: Int64
    /// Where the trigger restarted: the log's end then. Entries `after + 1 ... through` were skipped.
    package var through: Int64
    package var time: Date

    package init(after: Int64, through: Int64, time: Date) {
        self.after = after
        self.through = through
        self.time = time
    }

    /// How many change-log entries were skipped (of every namespace: the trigger's own are among them).
    package var skippedEntries: Int64 { max(0, through - after) }

    package var description: String {
        "skipped change-log entries \(ResumeToken(sequence: after + 1).data) to \(ResumeToken(sequence: through).data) "
            + "(\(skippedEntries) entries) at \(UTCTimestamp.text(time))"
    }

    var document: BSONDocument {
        ["after": .int64(after), "through": .int64(through), "time": .date(time)]
    }

    init?(document: BSONDocument) {
        guard let after = document["after"]?.int64Value, let through = document["through"]?.int64Value,
            let time = document["time"]?.dateValue
        else { return nil }
        self.init(after: after, through: through, time: time)
    }
}
