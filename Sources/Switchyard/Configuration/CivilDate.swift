/// A proleptic Gregorian calendar date in UTC, converted to and from days since 1970-01-01 with integer
/// arithmetic only (no time zones, no Foundation calendars), so schedule computations are exact and fast.
struct CivilDate: Sendable, Hashable {
    var year: Int64
    var month: Int
    var day: Int

    init(year: Int64, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` after 1970-01-01 (negative before it). Howard Hinnant's `civil_from_days`.
    init(daysSinceEpoch days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01. Howard Hinnant's `days_from_civil`.
    var daysSinceEpoch: Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 0 = Sunday … 6 = Saturday; 1970-01-01 was a Thursday.
    static func weekday(daysSinceEpoch days: Int64) -> Int {
        Int(((days + 4) % 7 + 7) % 7)
    }

    static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysIn(month: Int, year: Int64) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
