import Foundation

/// `YYYY-MM-DDTHH:MM:SS[.mmm]Z` for reports and logs, computed without calendars or locales, digit by digit
/// into the string's own storage (`serve` prints one per call). Years past 9999 take more digits; years
/// before 0 a leading `-`.
public enum UTCTimestamp {
    public static func text(_ date: Date, milliseconds: Bool = false) -> String {
        let total = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = total >= 0 ? total / 1000 : (total - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let day = CivilDate(daysSinceEpoch: days)
        let year = day.year.magnitude
        var yearWidth = 4
        var limit: UInt64 = 10_000
        while year >= limit && yearWidth < 19 {
            yearWidth += 1
            limit *= 10
        }
        let sign = day.year < 0 ? 1 : 0
        let capacity = sign + yearWidth + 16 + (milliseconds ? 4 : 0)
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var position = 0
            func put(_ character: Unicode.Scalar) {
                buffer[position] = UInt8(ascii: character)
                position += 1
            }
            func write(_ value: UInt64, width: Int) {
                var remaining = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(ascii: "0") + UInt8(remaining % 10)
                    remaining /= 10
                }
                position += width
            }
            if sign == 1 { put("-") }
            write(year, width: yearWidth)
            put("-")
            write(UInt64(day.month), width: 2)
            put("-")
            write(UInt64(day.day), width: 2)
            put("T")
            write(UInt64(secondOfDay / 3600), width: 2)
            put(":")
            write(UInt64(secondOfDay / 60 % 60), width: 2)
            put(":")
            write(UInt64(secondOfDay % 60), width: 2)
            if milliseconds {
                put(".")
                write(UInt64(total - seconds * 1000), width: 3)
            }
            put("Z")
            return position
        }
    }
}
