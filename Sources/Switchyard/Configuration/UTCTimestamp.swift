import Foundation

/// `YYYY-MM-DDTHH:MM:SS[.mmm]Z` for reports and logs, computed without calendars or locales.
public enum UTCTimestamp {
    public static func text(_ date: Date, milliseconds: Bool = false) -> String {
        let total = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = total >= 0 ? total / 1000 : (total - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let day = CivilDate(daysSinceEpoch: days)
        if (0...9999).contains(day.year) {
            return fixedWidth(
                [Int(day.year), day.month, day.day, secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60],
                milliseconds: milliseconds ? Int(total - seconds * 1000) : nil)
        }
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

    /// Years 0 to 9999, digit by digit into the string's own storage (`serve` prints a timestamp per call).
    private static func fixedWidth(_ fields: [Int], milliseconds: Int?) -> String {
        let separators: [UInt8] = Array("--T::".utf8)
        return String(unsafeUninitializedCapacity: milliseconds == nil ? 20 : 24) { buffer in
            var position = 0
            func write(_ value: Int, width: Int) {
                var remaining = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(ascii: "0") + UInt8(remaining % 10)
                    remaining /= 10
                }
                position += width
            }
            for (index, field) in fields.enumerated() {
                write(field, width: index == 0 ? 4 : 2)
                if index < separators.count {
                    buffer[position] = separators[index]
                    position += 1
                }
            }
            if let milliseconds {
                buffer[position] = UInt8(ascii: ".")
                position += 1
                write(milliseconds, width: 3)
            }
            buffer[position] = UInt8(ascii: "Z")
            return position + 1
        }
    }
}
