import BSON
import Foundation

extension InvocationRecord {
    /// The record as one JSON object on one line, for log collectors (`switchyard serve --log-format json`):
    /// `time` (when the run ended, UTC), `level` (`info`, or `error` for a failure or timeout), `trigger`
    /// (null for a client's call), `function`, `eventId` (null for a call), `attempt`, `userId`, `durationMs`,
    /// `outcome`, `error` (when it failed) and `logs`.
    package var jsonLine: String {
        let end = start.addingTimeInterval(duration.milliseconds / 1000)
        var document: BSONDocument = [
            "time": .string(UTCTimestamp.text(end, milliseconds: true)),
            "level": .string(outcome == .success ? "info" : "error"),
            "trigger": trigger.map { .string($0) } ?? .null,
            "function": .string(function),
            "eventId": eventId.map { .string($0) } ?? .null,
            "attempt": .int64(Int64(attempt)),
            "userId": .string(userId),
            "durationMs": .double((duration.milliseconds * 1000).rounded() / 1000),
            "outcome": .string(outcome.rawValue),
        ]
        if let error { document.append("error", .string(error)) }
        document.append("logs", .array(logs.map { .string($0) }))
        return document.extendedJSON(mode: .relaxed)
    }
}
