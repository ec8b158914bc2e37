import BSON
import Foundation

extension TriggerStatus {
    /// The status table `switchyard triggers` prints: one row per trigger, then a line under each suspended
    /// trigger saying why (and that it resumes by itself when the cause was storage), one with its heartbeat and
    /// the cluster time it processed through, one for what it skipped after its resume point left the log, one
    /// for the node holding it (a database several nodes share), one when its state is in memory only, and one per
    /// warning.
    package static func table(_ statuses: [TriggerStatus]) -> [String] {
        let header = [
            "NAME", "TYPE", "ORDER", "FUNCTION", "STATE", "PROCESSED", "FAILED", "DEAD", "PENDING", "LAG", "LAST EVENT",
        ]
        var lines = [String]()
        let rows = statuses.map { status in
            [
                status.name, status.type, status.ordering.map(\.tableText) ?? "-", status.function,
                status.state.rawValue, String(status.processed), String(status.failedAttempts),
                String(status.deadLettered), status.pendingLogEntries.map(String.init) ?? "-",
                status.lagSeconds.map(lagText) ?? "-", status.lastEventTime.map { UTCTimestamp.text($0) } ?? "-",
            ]
        }
        let aligned = AppConfiguration.aligned([header] + rows)
        lines.append(aligned[0])
        for (status, row) in zip(statuses, aligned.dropFirst()) {
            lines.append(row)
            if let suspension = status.suspension {
                var note = "  suspended since \(UTCTimestamp.text(suspension.time)): \(suspension.reason)"
                if let event = suspension.failedEventId { note += " (event \(event))" }
                if suspension.resumesWhenStorageReturns { note += "; resumes when storage returns" }
                lines.append(note)
            }
            var beat: [String] = []
            if let heartbeat = status.heartbeat { beat.append("heartbeat \(UTCTimestamp.text(heartbeat))") }
            if let time = status.lastClusterTime { beat.append("processed through cluster time \(time.statusText)") }
            if !beat.isEmpty { lines.append("  " + beat.joined(separator: "; ")) }
            if let gap = status.resumeGap { lines.append("  resume point lost: \(gap.description)") }
            if let node = status.node { lines.append("  held by node \(node)") }
            if status.isInMemoryOnly {
                lines.append("  state in memory only: the store could not save it; saved when storage returns")
            }
            lines += status.warnings.map { "  warning: \($0)" }
        }
        return lines
    }

    /// Whole seconds, as a lag is read at a glance.
    static func lagText(_ seconds: Double) -> String {
        "\(Int(seconds.rounded(.down)))s"
    }
}

extension DeliveryOrder {
    /// `ordered`, `unordered(10)`, `byDocumentKey(10)`.
    var tableText: String {
        switch self {
        case .ordered: name
        case .unordered(let limit), .byDocumentKey(let limit): "\(name)(\(limit))"
        }
    }
}

extension BSONTimestamp {
    /// `Timestamp(1800000000, 1)` (as the mongo shell prints one) and the time it stands for.
    package var statusText: String {
        "Timestamp(\(time), \(increment)) = \(UTCTimestamp.text(Date(timeIntervalSince1970: Double(time))))"
    }
}
