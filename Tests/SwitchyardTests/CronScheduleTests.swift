import Foundation
import Switchyard
import Testing

@Suite struct CronScheduleTests {
    /// A UTC date from "YYYY-MM-DD HH:MM".
    func date(_ text: String) -> Date {
        let parts = text.split(whereSeparator: { "- :".contains($0) }).compactMap { Int($0) }
        var components = DateComponents()
        (components.year, components.month, components.day, components.hour, components.minute) =
            (parts[0], parts[1], parts[2], parts[3], parts[4])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)!
    }

    func next(_ expression: String, after text: String) throws -> Date {
        try CronSchedule(expression).next(after: date(text))
    }

    @Test func everyMinuteFiresOnTheNextWholeMinute() throws {
        #expect(try next("* * * * *", after: "2024-03-10 12:00") == date("2024-03-10 12:01"))
        let halfPast = date("2024-03-10 12:00").addingTimeInterval(30)
        #expect(try CronSchedule("* * * * *").next(after: halfPast) == date("2024-03-10 12:01"))
    }

    @Test func stepsSelectValuesDivisibleByTheStep() throws {
        #expect(try next("*/25 * * * *", after: "2024-03-10 12:00") == date("2024-03-10 12:25"))
        #expect(try next("*/25 * * * *", after: "2024-03-10 12:50") == date("2024-03-10 13:00"))
        // App Services' modular step: 5-30/10 is 10, 20, 30 (not 5, 15, 25 as in classic cron).
        #expect(try next("5-30/10 * * * *", after: "2024-03-10 12:00") == date("2024-03-10 12:10"))
        #expect(try next("5-30/10 * * * *", after: "2024-03-10 12:30") == date("2024-03-10 13:10"))
        #expect(try next("0 */6 * * *", after: "2024-03-10 13:00") == date("2024-03-10 18:00"))
    }

    @Test func listsRangesAndNames() throws {
        #expect(try next("0 11 * 1,3,7 *", after: "2024-01-31 11:00") == date("2024-03-01 11:00"))
        #expect(try next("30 9 * * MON-FRI", after: "2024-03-08 10:00") == date("2024-03-11 09:30"))  // Fri → Mon
        #expect(try next("0 0 1 jan *", after: "2024-06-01 00:00") == date("2025-01-01 00:00"))
        #expect(try next("0 0 * * SUN", after: "2024-03-10 00:00") == date("2024-03-17 00:00"))
    }

    @Test func rollsOverMonthsAndYears() throws {
        #expect(try next("0 0 31 * *", after: "2024-04-01 00:00") == date("2024-05-31 00:00"))  // April has 30 days
        #expect(try next("59 23 31 12 *", after: "2024-12-31 23:59") == date("2025-12-31 23:59"))
        #expect(try next("0 0 1 * *", after: "2024-12-15 00:00") == date("2025-01-01 00:00"))
    }

    @Test func february29thWaitsForALeapYear() throws {
        #expect(try next("0 0 29 2 *", after: "2024-03-01 00:00") == date("2028-02-29 00:00"))
        // 2100 is not a leap year (divisible by 100, not by 400); 2000 was.
        #expect(try next("0 0 29 2 *", after: "2096-03-01 00:00") == date("2104-02-29 00:00"))
        #expect(try next("0 0 29 2 *", after: "1999-01-01 00:00") == date("2000-02-29 00:00"))
    }

    @Test func bothDayFieldsMustMatchAsAppServicesDocuments() throws {
        // Friday the 13th: 2024-09-13 and then 2024-12-13 (classic cron's either-day rule would fire on the 15th).
        #expect(try next("0 0 13 * FRI", after: "2024-09-14 00:00") == date("2024-12-13 00:00"))
        // February 29th on a Monday: next in 2044.
        #expect(try next("0 12 29 2 1", after: "2024-03-01 00:00") == date("2044-02-29 12:00"))
    }

    @Test func fireTimesListsTheMissedRunsInOrder() throws {
        let schedule = try CronSchedule("0 */8 * * *")
        let times = Array(schedule.fireTimes(from: date("2024-02-28 08:00"), to: date("2024-03-01 08:00")))
        #expect(
            times == [
                date("2024-02-28 16:00"), date("2024-02-29 00:00"), date("2024-02-29 08:00"), date("2024-02-29 16:00"),
                date("2024-03-01 00:00"), date("2024-03-01 08:00"),
            ])
        #expect(Array(schedule.fireTimes(from: date("2024-02-28 08:00"), to: date("2024-02-28 09:00"))).isEmpty)
        // Lazy: a long outage of an every-minute schedule costs only what is read.
        let everyMinute = try CronSchedule("* * * * *")
        #expect(
            Array(everyMinute.fireTimes(from: date("2000-01-01 00:00"), to: date("2024-01-01 00:00")).prefix(2)).count
                == 2)
    }

    @Test func farFutureDatesHaveNoFireTime() throws {
        let schedule = try CronSchedule("* * * * *")
        #expect(schedule.next(after: Date(timeIntervalSince1970: 1e15)) == .distantFuture)
        #expect(schedule.next(after: Date(timeIntervalSince1970: .infinity)) == .distantFuture)
    }

    @Test(arguments: [
        ("* * * *", 0, "a schedule has 5 fields (minute hour dayOfMonth month weekday), found 4"),
        ("* * * * * *", 10, "a schedule has 5 fields (minute hour dayOfMonth month weekday), found 6"),
        ("60 * * * *", 0, "60 is out of range for the minute field (0-59)"),
        ("0 24 * * *", 2, "24 is out of range for the hour field (0-23)"),
        ("0 0 0 * *", 4, "0 is out of range for the dayOfMonth field (1-31)"),
        ("0 0 * 13 *", 6, "13 is out of range for the month field (1-12)"),
        ("0 0 * * 7", 8, "7 is out of range for the weekday field (0-6) (use 0 or SUN for Sunday)"),
        ("0 0 */2 * *", 5, "steps ('/') are only allowed in the minute and hour fields, not in the dayOfMonth field"),
        ("0 0 * * 1-5/2", 11, "steps ('/') are only allowed in the minute and hour fields, not in the weekday field"),
        ("*/0 * * * *", 2, "step '0' in the minute field must be a number from 1 to 60"),
        ("5/15 * * * *", 0, "a step needs '*' or a range before '/' in the minute field"),
        (
            "0 0 * JNA *", 6,
            "'JNA' is not a valid month value, expected a number or one of JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC (did you mean 'JAN'?)"
        ),
        (
            "0 0 * * MON-SUNDAY", 12,
            "'SUNDAY' is not a valid weekday value, expected a number or one of SUN MON TUE WED THU FRI SAT"
        ),
        ("0 17-9 * * *", 2, "range 17-9 in the hour field runs backwards"),
        ("0 0 1,,2 * *", 6, "empty value in the dayOfMonth field"),
        ("0 0 30 2 *", 4, "the schedule never fires: no selected month has that day"),
        ("0 0 31 4,6,9,11 *", 4, "the schedule never fires: no selected month has that day"),
        ("x * * * *", 0, "'x' is not a valid minute value, expected a number"),
    ])
    func rejectsBadExpressionsAtTheirOffset(expression: String, offset: Int, message: String) {
        #expect(throws: CronSchedule.ParseError(offset: offset, message: message)) { try CronSchedule(expression) }
    }

    @Test func acceptsTheLastDayThatExistsInSomeSelectedMonth() throws {
        #expect(try next("0 0 31 2,3 *", after: "2024-01-01 00:00") == date("2024-03-31 00:00"))
        #expect(try next("0 0 29 2 *", after: "2024-01-01 00:00") == date("2024-02-29 00:00"))
    }

    /// Random schedules built from explicit value sets, checked against a day-by-day search that uses
    /// Foundation's calendar: the first fire time after a random date must agree.
    @Test func agreesWithABruteForceSearch() throws {
        var generator = ConfigurationRobustnessTests.SeededGenerator(state: 0xC0FFEE)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        func pick(_ range: ClosedRange<Int>) -> [Int]? {
            if Bool.random(using: &generator) { return nil }  // "*"
            let count = Int.random(in: 1...3, using: &generator)
            return Array(Set((0..<count).map { _ in Int.random(in: range, using: &generator) })).sorted()
        }
        func field(_ values: [Int]?) -> String { values.map { $0.map(String.init).joined(separator: ",") } ?? "*" }
        var checked = 0
        for _ in 0..<300 {
            let (minutes, hours, days, months, weekdays) = (
                pick(0...59), pick(0...23), pick(1...31), pick(1...12), pick(0...6)
            )
            let expression = [minutes, hours, days, months, weekdays].map(field).joined(separator: " ")
            guard let schedule = try? CronSchedule(expression) else { continue }  // a day no selected month has
            let start = Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000, using: &generator)))
            var expected: Date?
            var day = calendar.startOfDay(for: start)
            for _ in 0..<(366 * 8) where expected == nil {
                let parts = calendar.dateComponents([.month, .day, .weekday], from: day)
                if months?.contains(parts.month!) ?? true, days?.contains(parts.day!) ?? true,
                    weekdays?.contains(parts.weekday! - 1) ?? true
                {
                    for hour in hours ?? Array(0...23) where expected == nil {
                        for minute in minutes ?? Array(0...59) {
                            let candidate = day.addingTimeInterval(Double(hour * 3600 + minute * 60))
                            if candidate > start {
                                expected = candidate
                                break
                            }
                        }
                    }
                }
                day = day.addingTimeInterval(86_400)
            }
            guard let expected else { continue }  // fires less often than every 8 years
            #expect(schedule.next(after: start) == expected, "\(expression) after \(start)")
            checked += 1
        }
        #expect(checked > 100)
    }
}
