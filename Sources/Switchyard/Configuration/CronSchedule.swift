import Foundation

/// A five-field cron schedule evaluated in UTC, with App Services' rules:
///
/// - fields are `minute hour dayOfMonth month weekday`; months may be `1`–`12` or `JAN`–`DEC`, weekdays
///   `0`–`6` or `SUN`–`SAT` (7 is not a weekday, as in App Services' table);
/// - each field is `*`, a value, a range `a-b`, or a comma-separated list of those;
/// - a step `*/n` or `a-b/n` is allowed only in the minute and hour fields, and (as App Services documents
///   its "modular time step") selects the values `v` with `v % n == 0`, so `5-30/10` is 10, 20, 30;
/// - the trigger fires when *all* fields match the time, including both day fields when both are
///   restricted (App Services: "whenever all of the fields … match"; classic cron's either-day rule does
///   not apply).
///
/// Schedules that can never fire (`0 0 31 2 *`) are rejected when parsed.
package struct CronSchedule: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written.
    package let expression: String
    // Bit `v` is set when value `v` is selected.
    let minutes: UInt64
    let hours: UInt64
    let daysOfMonth: UInt64
    let months: UInt64
    let weekdays: UInt64

    package var description: String { expression }

    /// A problem in an expression; `offset` is the 0-based character position of the offending part.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        package var offset: Int
        package var message: String

        package init(offset: Int, message: String) {
            self.offset = offset
            self.message = message
        }

        package var description: String { message }
    }

    init(expression: String, minutes: UInt64, hours: UInt64, daysOfMonth: UInt64, months: UInt64, weekdays: UInt64) {
        self.expression = expression
        self.minutes = minutes
        self.hours = hours
        self.daysOfMonth = daysOfMonth
        self.months = months
        self.weekdays = weekdays
    }
}

extension CronSchedule {
    /// The first fire time strictly after `date` (fire times are whole minutes). Dates after the year 9999
    /// have no fire time and yield `Date.distantFuture`.
    package func next(after date: Date) -> Date {
        nextFireTime(after: date) ?? .distantFuture
    }

    func nextFireTime(after date: Date) -> Date? {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds < Self.endSeconds else { return nil }
        let firstMinute = seconds < Self.startSeconds ? Self.startMinute : Int64((seconds / 60).rounded(.down)) + 1
        return nextMinute(from: firstMinute).map { Date(timeIntervalSince1970: Double($0) * 60) }
    }

    /// The fire times `t` with `start < t <= end`, in order: what a scheduler missed between its last fire
    /// time and now. Lazy, so a long outage of an every-minute schedule costs only what is read.
    package func fireTimes(from start: Date, to end: Date) -> FireTimes {
        FireTimes(schedule: self, start: start, end: end)
    }

    package struct FireTimes: Sequence, Sendable {
        let schedule: CronSchedule
        let start: Date
        let end: Date

        package func makeIterator() -> Iterator {
            Iterator(schedule: schedule, last: start, end: end)
        }

        package struct Iterator: IteratorProtocol, Sendable {
            let schedule: CronSchedule
            var last: Date
            let end: Date

            package mutating func next() -> Date? {
                guard let candidate = schedule.nextFireTime(after: last), candidate <= end else { return nil }
                last = candidate
                return candidate
            }
        }
    }

    // Year 1 to year 9999 in UTC.
    static let startMinute = CivilDate(year: 1, month: 1, day: 1).daysSinceEpoch * 1440
    static let startSeconds = Double(startMinute) * 60
    static let endSeconds = Double(CivilDate(year: 10_000, month: 1, day: 1).daysSinceEpoch * 86_400)

    /// The first matching minute (since the epoch) at or after `start`. Skips whole months, days and hours
    /// that cannot match, so even a schedule that fires once in 28 years takes a few thousand steps.
    func nextMinute(from start: Int64) -> Int64? {
        var minute = start
        for _ in 0..<200_000 {
            let day = minute >= 0 ? minute / 1440 : (minute - 1439) / 1440
            let minuteOfDay = Int(minute - day * 1440)
            let date = CivilDate(daysSinceEpoch: day)
            guard date.year < 10_000 else { return nil }
            if !Self.has(months, date.month) {
                let nextMonth =
                    date.month == 12
                    ? CivilDate(year: date.year + 1, month: 1, day: 1)
                    : CivilDate(year: date.year, month: date.month + 1, day: 1)
                minute = nextMonth.daysSinceEpoch * 1440
                continue
            }
            if !Self.has(daysOfMonth, date.day) || !Self.has(weekdays, CivilDate.weekday(daysSinceEpoch: day)) {
                minute = (day + 1) * 1440
                continue
            }
            let hour = minuteOfDay / 60
            if !Self.has(hours, hour) {
                if let nextHour = Self.first(in: hours, from: hour + 1) {
                    minute = day * 1440 + Int64(nextHour * 60)
                } else {
                    minute = (day + 1) * 1440
                }
                continue
            }
            if let nextMinute = Self.first(in: minutes, from: minuteOfDay % 60) {
                return day * 1440 + Int64(hour * 60 + nextMinute)
            }
            minute = day * 1440 + Int64((hour + 1) * 60)
        }
        return nil
    }

    static func has(_ mask: UInt64, _ value: Int) -> Bool {
        value >= 0 && value < 64 && mask & (1 << UInt64(value)) != 0
    }

    /// The smallest selected value ≥ `value`, if any.
    static func first(in mask: UInt64, from value: Int) -> Int? {
        guard value < 64 else { return nil }
        let rest = mask >> UInt64(value)
        return rest == 0 ? nil : value + rest.trailingZeroBitCount
    }
}
