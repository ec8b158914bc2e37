import BSON
import Foundation

/// The times `switchyard record --since/--until` take: an ISO-8601 time (`2026-05-01T12:00:00Z`, an offset
/// instead of `Z`, fractions of a second allowed), or how long ago (`90s`, `15m`, `2h`, `3d`).
package enum RecordingTime {
    package static func parse(_ text: String, now: Date = Date()) -> Date? {
        if let date = ISO8601Timestamp.parse(text) { return date.date }
        guard let unit = text.last, let count = Double(text.dropLast()), count >= 0, count.isFinite else { return nil }
        let seconds: Double
        switch unit {
        case "s": seconds = 1
        case "m": seconds = 60
        case "h": seconds = 3_600
        case "d": seconds = 86_400
        default: return nil
        }
        return now.addingTimeInterval(-count * seconds)
    }
}
