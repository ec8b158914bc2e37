import Foundation

extension TriggerStatus {
    /// The status table `switchyard triggers` prints: one row per trigger, then a line under each suspended
    /// trigger saying why (and that it resumes by itself when the cause was storage), one when its state is in
    /// memory only, and one per warning.
    package static func table(_ statuses: [TriggerStatus]) -> [String] {
        let header = ["NAME", "TYPE", "FUNCTION", "STATE", "PROCESSED", "FAILED", "DEAD", "PENDING", "LAST EVENT"]
        var lines = [String]()
        let rows = statuses.map { status in
            [
                status.name, status.type, status.function, status.state.rawValue, String(status.processed),
                String(status.failedAttempts), String(status.deadLettered),
                status.pendingLogEntries.map(String.init) ?? "-",
                status.lastEventTime.map { UTCTimestamp.text($0) } ?? "-",
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
            if status.isInMemoryOnly {
                lines.append("  state in memory only: the store could not save it; saved when storage returns")
            }
            lines += status.warnings.map { "  warning: \($0)" }
        }
        return lines
    }
}
