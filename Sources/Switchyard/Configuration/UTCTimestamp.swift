import Foundation

/// `YYYY-MM-DDTHH:MM:SS[.mmm]Z` for reports and logs, computed without calendars or locales, digit by digit
/// into the output's own storage (`serve` prints one per call). Years past 9999 take more digits; years
/// before 0 a leading `-`.
package enum UTCTimestamp {
    /// The longest timestamp: a sign, 19 year digits, `-MM-DDTHH:MM:SS` and `Z`, then `.mmm`.
    static let maximumLength = 1 + 19 + 16 + 4

    package static func text(_ date: Date, milliseconds: Bool = false) -> String {
        String(unsafeUninitializedCapacity: maximumLength) { buffer in
            write(date, milliseconds: milliseconds, into: buffer)
        }
    }

    /// Appends `text(date, milliseconds:)` as UTF-8, without making a string of it.
    package static func append(_ date: Date, milliseconds: Bool = false, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { buffer in
            let count = write(date, milliseconds: milliseconds, into: buffer)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Writes the timestamp at the start of `buffer` (at least `maximumLength` bytes); returns its length.
    private static func write(_ date: Date, milliseconds: Bool, into buffer: UnsafeMutableBufferPointer<UInt8>)
        -> Int
    {
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
        if day.year < 0 { put("-") }
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
