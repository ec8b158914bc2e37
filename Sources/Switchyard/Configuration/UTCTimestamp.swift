import Foundation

/// `YYYY-MM-DDTHH:MM:SS[.mmm]Z` for reports and logs, computed without calendars or locales.
public enum UTCTimestamp {
    public static func text(_ date: Date, milliseconds: Bool = false) -> String {
        let total = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = total >= 0 ? total / 1000 : (total - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let day = CivilDate(daysSinceEpoch: days)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = "\(padded(day.year, 4))-\(padded(Int64(day.month), 2))-\(padded(Int64(day.day), 2))T"
        text += "\(padded(Int64(secondOfDay / 3600), 2)):\(padded(Int64(secondOfDay / 60 % 60), 2)):"
        text += padded(Int64(secondOfDay % 60), 2)
        if milliseconds { text += "." + padded(total - seconds * 1000, 3) }
        return text + "Z"
    }
}
