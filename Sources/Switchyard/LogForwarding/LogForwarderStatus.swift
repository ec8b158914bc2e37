import BSON
import Foundation

/// How one log forwarder is doing since the app started (or since its configuration last changed).
package struct LogForwarderStatus: Sendable, Equatable {
    package struct Counts: Sendable, Equatable {
        /// Records handed to the action.
        package var delivered = 0
        /// Deliveries made (a batch counts once).
        package var deliveries = 0
        /// Records whose delivery failed every attempt.
        package var failed = 0
        /// Records dropped because the queue was full.
        package var dropped = 0
        /// The last failed delivery's error, and when it gave up.
        package var lastError: String?
        package var lastErrorTime: Date?
    }

    package var forwarder: LogForwarder
    /// Records waiting for delivery.
    package var queued: Int
    package var counts: Counts

    /// `{name, disabled, logTypes, logStatuses, policy, action: {collection} | {function}, queued, delivered,
    /// deliveries, failed, dropped, lastError?, lastErrorTime?}`, as the admin API answers it.
    package var document: BSONDocument {
        var document: BSONDocument = [
            "name": .string(forwarder.name),
            "disabled": .bool(forwarder.disabled),
            "logTypes": .array(forwarder.logTypes.sorted().map { .string($0.rawValue) }),
            "logStatuses": .array(forwarder.logStatuses.sorted().map { .string($0.rawValue) }),
            "policy": .string(forwarder.policy.rawValue),
        ]
        switch forwarder.action {
        case .collection(let database, let collection):
            document.append("action", ["collection": .string("\(database).\(collection)")])
        case .function(let name): document.append("action", ["function": .string(name)])
        }
        document.append("queued", .int64(Int64(queued)))
        document.append("delivered", .int64(Int64(counts.delivered)))
        document.append("deliveries", .int64(Int64(counts.deliveries)))
        document.append("failed", .int64(Int64(counts.failed)))
        document.append("dropped", .int64(Int64(counts.dropped)))
        if let error = counts.lastError { document.append("lastError", .string(error)) }
        if let time = counts.lastErrorTime { document.append("lastErrorTime", .datetime(BSONDate(time))) }
        return document
    }
}
