import BSON

/// ISO-8601 UTC timestamps for Extended JSON `$date` values, read and written without Foundation's
/// formatters (which are slow to create and locale-sensitive).
enum ISO8601Timestamp {
    /// Reads `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)`; fractions beyond milliseconds are dropped.
    static func parse(_ text: String) -> BSONDate? {
        let c = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= c.count else { return nil }
            var value = 0
            for byte in c[start..<(start + count)] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard c.count >= 20, let year = number(0, 4), c[4] == 45, let month = number(5, 2), c[7] == 45,
            let day = number(8, 2), c[10] == 84 || c[10] == 116, let hour = number(11, 2), c[13] == 58,
            let minute = number(14, 2), c[16] == 58, let second = number(17, 2),
            (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: Int64(year)),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var milliseconds = 0
        if index < c.count, c[index] == 46 {
            index += 1
            var digits = 0
            while index < c.count, c[index] >= 48, c[index] <= 57 {
                if digits < 3 { milliseconds = milliseconds * 10 + Int(c[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { milliseconds *= 10 }
        }
        var offsetMinutes = 0
        guard index < c.count else { return nil }
        if c[index] == 90 || c[index] == 122 {
            index += 1
        } else if c[index] == 43 || c[index] == 45, let h = number(index + 1, 2), index + 3 < c.count,
            c[index + 3] == 58, let m = number(index + 4, 2), h < 24, m < 60
        {
            offsetMinutes = (h * 60 + m) * (c[index] == 45 ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == c.count else { return nil }
        let days = CivilDate(year: Int64(year), month: month, day: day).daysSinceEpoch
        let minutes = days * 1440 + Int64(hour * 60 + minute - offsetMinutes)
        return BSONDate(millisecondsSinceEpoch: (minutes * 60 + Int64(second)) * 1000 + Int64(milliseconds))
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff]Z` for years 1970–9999 (Extended JSON's relaxed form); nil outside them.
    static func format(_ date: BSONDate) -> String? {
        let ms = date.millisecondsSinceEpoch
        guard ms >= 0, ms < 253_402_300_800_000 else { return nil }
        let civil = CivilDate(daysSinceEpoch: ms / 86_400_000)
        let msOfDay = Int(ms % 86_400_000)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var text = "\(civil.year)-\(two(civil.month))-\(two(civil.day))T"
        text += "\(two(msOfDay / 3_600_000)):\(two(msOfDay / 60_000 % 60)):\(two(msOfDay / 1000 % 60))"
        let fraction = msOfDay % 1000
        if fraction != 0 { text += "." + String(String(fraction + 1000).dropFirst()) }
        return text + "Z"
    }
}
