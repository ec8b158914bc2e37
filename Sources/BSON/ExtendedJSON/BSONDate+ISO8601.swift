extension BSONDate {
    /// 9999-12-31T23:59:59.999Z, the last instant relaxed Extended JSON prints as text.
    static let maximumISO8601Milliseconds: Int64 = 253_402_300_799_999

    /// Appends `YYYY-MM-DDTHH:MM:SS[.mmm]Z` (milliseconds only when not zero, as the specification recommends).
    /// Only for dates from year 0 to 9999.
    func appendISO8601(to output: inout [UInt8]) {
        let ms = millisecondsSinceEpoch
        var days = ms / 86_400_000
        var msOfDay = ms % 86_400_000
        if msOfDay < 0 {
            msOfDay += 86_400_000
            days -= 1
        }
        let (year, month, day) = Self.civil(fromDays: days)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                output.append(UInt8(value / divisor % 10) + UInt8(ascii: "0"))
                divisor /= 10
            }
        }
        digits(year, 4)
        output.append(UInt8(ascii: "-"))
        digits(month, 2)
        output.append(UInt8(ascii: "-"))
        digits(day, 2)
        output.append(UInt8(ascii: "T"))
        digits(msOfDay / 3_600_000, 2)
        output.append(UInt8(ascii: ":"))
        digits(msOfDay / 60_000 % 60, 2)
        output.append(UInt8(ascii: ":"))
        digits(msOfDay / 1000 % 60, 2)
        if msOfDay % 1000 != 0 {
            output.append(UInt8(ascii: "."))
            digits(msOfDay % 1000, 3)
        }
        output.append(UInt8(ascii: "Z"))
    }

    /// Reads RFC 3339 date-time text: `YYYY-MM-DDTHH:MM:SS`, optional fraction (digits past milliseconds are
    /// dropped), then `Z` or an offset `±HH:MM` / `±HHMM`. Nil when malformed or out of range.
    init?(iso8601 text: some Collection<UInt8>) {
        let t = Array(text)
        var i = 0
        func number(_ count: Int) -> Int64? {
            guard i + count <= t.count else { return nil }
            var value: Int64 = 0
            for _ in 0..<count {
                let d = t[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                value = value * 10 + Int64(d)
                i += 1
            }
            return value
        }
        func literal(_ options: UInt8...) -> Bool {
            guard i < t.count, options.contains(t[i]) else { return false }
            i += 1
            return true
        }
        guard let year = number(4), literal(UInt8(ascii: "-")), let month = number(2), literal(UInt8(ascii: "-")),
            let day = number(2), literal(UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")),
            let hour = number(2), literal(UInt8(ascii: ":")), let minute = number(2), literal(UInt8(ascii: ":")),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year), hour < 24,
            minute < 60, second < 60
        else { return nil }
        var millis: Int64 = 0
        if literal(UInt8(ascii: ".")) {
            var scale: Int64 = 100
            var sawDigit = false
            while i < t.count, t[i] &- UInt8(ascii: "0") < 10 {
                millis += Int64(t[i] - UInt8(ascii: "0")) * scale
                scale /= 10
                sawDigit = true
                i += 1
            }
            guard sawDigit else { return nil }
        }
        var offsetMinutes: Int64 = 0
        if !literal(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            guard i < t.count, t[i] == UInt8(ascii: "+") || t[i] == UInt8(ascii: "-") else { return nil }
            let negative = t[i] == UInt8(ascii: "-")
            i += 1
            guard let offsetHours = number(2) else { return nil }
            _ = literal(UInt8(ascii: ":"))
            guard let offsetMinute = number(2), offsetHours < 24, offsetMinute < 60 else { return nil }
            offsetMinutes = (offsetHours * 60 + offsetMinute) * (negative ? -1 : 1)
        }
        guard i == t.count else { return nil }
        let days = Self.days(fromCivilYear: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        self.init(millisecondsSinceEpoch: seconds * 1000 + millis)
    }

    private static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar, counting years in 400-year eras from March.
    static func days(fromCivilYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `days(fromCivilYear:month:day:)`.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
