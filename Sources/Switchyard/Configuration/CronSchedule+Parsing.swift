extension CronSchedule {
    /// Parses a five-field expression; errors carry the offset of the offending field or value.
    package init(_ expression: String) throws(ParseError) {
        let characters = Array(expression)
        var fields: [(text: [Character], offset: Int)] = []
        var index = 0
        while index < characters.count {
            if characters[index] == " " || characters[index] == "\t" {
                index += 1
                continue
            }
            let start = index
            while index < characters.count, characters[index] != " ", characters[index] != "\t" { index += 1 }
            fields.append((Array(characters[start..<index]), start))
        }
        guard fields.count == 5 else {
            let offset = fields.count > 5 ? fields[5].offset : 0
            throw ParseError(
                offset: offset,
                message: "a schedule has 5 fields (minute hour dayOfMonth month weekday), found \(fields.count)")
        }
        var masks: [UInt64] = []
        for (field, part) in zip(Field.allCases, fields) {
            masks.append(try field.parse(part.text, offset: part.offset))
        }
        self.init(
            expression: expression, minutes: masks[0], hours: masks[1], daysOfMonth: masks[2], months: masks[3],
            weekdays: masks[4])
        try requireSomeDay(dayOfMonthOffset: fields[2].offset)
    }

    /// Rejects schedules whose days of the month occur in none of their months (`30 2`, `31 4,6`). Any day
    /// that exists falls on every weekday within the 400-year calendar cycle, so the weekday never makes a
    /// schedule impossible.
    private func requireSomeDay(dayOfMonthOffset: Int) throws(ParseError) {
        for month in 1...12 where Self.has(months, month) {
            let longest = CivilDate.daysIn(month: month, year: 2000)
            if let day = Self.first(in: daysOfMonth, from: 1), day <= longest { return }
        }
        throw ParseError(offset: dayOfMonthOffset, message: "the schedule never fires: no selected month has that day")
    }

    enum Field: Int, CaseIterable {
        case minute, hour, dayOfMonth, month, weekday

        var name: String {
            switch self {
            case .minute: "minute"
            case .hour: "hour"
            case .dayOfMonth: "dayOfMonth"
            case .month: "month"
            case .weekday: "weekday"
            }
        }

        var range: ClosedRange<Int> {
            switch self {
            case .minute: 0...59
            case .hour: 0...23
            case .dayOfMonth: 1...31
            case .month: 1...12
            case .weekday: 0...6
            }
        }

        var names: [String] {
            switch self {
            case .month: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
            case .weekday: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
            default: []
            }
        }

        /// First value that `names[0]` stands for.
        var firstNamedValue: Int { self == .month ? 1 : 0 }

        var allowsStep: Bool { self == .minute || self == .hour }

        func parse(_ text: [Character], offset: Int) throws(ParseError) -> UInt64 {
            var mask: UInt64 = 0
            var start = 0
            while start <= text.count {
                var end = start
                while end < text.count, text[end] != "," { end += 1 }
                mask |= try parseItem(Array(text[start..<end]), offset: offset + start)
                start = end + 1
            }
            return mask
        }

        /// One list item: `*`, `v`, `a-b`, `*/n` or `a-b/n`.
        private func parseItem(_ item: [Character], offset: Int) throws(ParseError) -> UInt64 {
            guard !item.isEmpty else { throw ParseError(offset: offset, message: "empty value in the \(name) field") }
            var body = item
            var step: Int?
            if let slash = item.firstIndex(of: "/") {
                guard allowsStep else {
                    throw ParseError(
                        offset: offset + slash,
                        message: "steps ('/') are only allowed in the minute and hour fields, not in the \(name) field")
                }
                body = Array(item[..<slash])
                let stepText = String(item[(slash + 1)...])
                guard let value = Int(stepText), value >= 1, value <= range.upperBound + 1 else {
                    throw ParseError(
                        offset: offset + slash + 1,
                        message:
                            "step '\(stepText)' in the \(name) field must be a number from 1 to \(range.upperBound + 1)"
                    )
                }
                guard body == ["*"] || body.contains("-") else {
                    throw ParseError(
                        offset: offset, message: "a step needs '*' or a range before '/' in the \(name) field")
                }
                step = value
            }
            var low = range.lowerBound
            var high = range.upperBound
            if body != ["*"] {
                if let dash = body.firstIndex(of: "-"), dash > 0 {
                    low = try value(Array(body[..<dash]), offset: offset)
                    high = try value(Array(body[(dash + 1)...]), offset: offset + dash + 1)
                    guard low <= high else {
                        throw ParseError(
                            offset: offset, message: "range \(String(body)) in the \(name) field runs backwards")
                    }
                } else {
                    low = try value(body, offset: offset)
                    high = low
                }
            }
            var mask: UInt64 = 0
            for v in low...high where step.map({ v % $0 == 0 }) ?? true { mask |= 1 << UInt64(v) }
            return mask
        }

        private func value(_ text: [Character], offset: Int) throws(ParseError) -> Int {
            let word = String(text)
            if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(word) {
                guard range.contains(number) else {
                    let sunday = self == .weekday && number == 7 ? " (use 0 or SUN for Sunday)" : ""
                    throw ParseError(
                        offset: offset,
                        message:
                            "\(number) is out of range for the \(name) field (\(range.lowerBound)-\(range.upperBound))\(sunday)"
                    )
                }
                return number
            }
            if let position = names.firstIndex(of: word.uppercased()) { return position + firstNamedValue }
            let expected = names.isEmpty ? "a number" : "a number or one of \(names.joined(separator: " "))"
            throw ParseError(
                offset: offset,
                message:
                    "'\(word)' is not a valid \(name) value, expected \(expected)\(ClosestMatch.hint(for: word, among: names))"
            )
        }
    }
}
