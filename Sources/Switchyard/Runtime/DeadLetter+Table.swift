import BSON
import Foundation

extension DeadLetter {
    /// What `switchyard dead-letters` prints: one row per letter (its id, to pass to `switchyard redeliver`),
    /// then its last error, and with `events` the original event as relaxed Extended JSON.
    package static func table(_ letters: [DeadLetter], events: Bool = false) -> [String] {
        let header = ["ID", "TRIGGER", "KIND", "EVENT", "ATTEMPTS", "FAILED AT"]
        let rows = letters.map { letter in
            [
                letter.id.hex, letter.trigger, letter.input.kindName, letter.eventId, String(letter.attempts),
                UTCTimestamp.text(letter.failedAt),
            ]
        }
        let aligned = AppConfiguration.aligned([header] + rows)
        var lines = [aligned[0]]
        for (letter, row) in zip(letters, aligned.dropFirst()) {
            lines.append(row)
            lines.append("  error: \(letter.error)")
            if events { lines.append("  event: \(letter.input.eventDocument.extendedJSON(mode: .relaxed))") }
        }
        return lines
    }
}

extension TriggerInput {
    /// `database`, `scheduled` or `authentication`.
    package var kindName: String {
        switch self {
        case .database: "database"
        case .scheduled: "scheduled"
        case .authentication: "authentication"
        }
    }

    /// The event as the function received it.
    package var eventDocument: BSONDocument {
        switch self {
        case .database(let change): change.raw
        case .scheduled(let scheduled): scheduled.raw
        case .authentication(let auth): auth.raw
        }
    }
}
