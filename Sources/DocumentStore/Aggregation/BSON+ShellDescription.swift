import BSON

extension BSON {
    /// A compact, shell-like rendering (`{_id: 1, tags: ["a"]}`) for error messages.
    var shellDescription: String {
        var out = ""
        describe(into: &out, depth: 0)
        return out
    }

    private func describe(into out: inout String, depth: Int) {
        // Error messages need a recognisable value, not all of a deeply nested one.
        guard depth < 20 else {
            out += "..."
            return
        }
        switch self {
        case .string(let s): out += "\"\(s)\""
        case .document(let document):
            out += "{"
            for (i, (key, value)) in document.enumerated() {
                if i > 0 { out += ", " }
                out += key + ": "
                value.describe(into: &out, depth: depth + 1)
            }
            out += "}"
        case .array(let elements):
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += ", " }
                element.describe(into: &out, depth: depth + 1)
            }
            out += "]"
        case .objectId(let id): out += "ObjectId('\(id.hex)')"
        case .datetime(let date): out += "new Date(\(date.millisecondsSinceEpoch))"
        case .int64(let i): out += "\(i)"
        case .int32(let i): out += "\(i)"
        case .double(let d): out += ConversionOperators.format(d)
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .undefined: out += "undefined"
        case .minKey: out += "MinKey"
        case .maxKey: out += "MaxKey"
        default: out += typeName
        }
    }
}

extension BSONDate {
    /// `2024-03-01T12:30:05.250Z`, as `$toString` and `$dateToString`'s default format write dates.
    var iso8601: String {
        let millis = millisecondsSinceEpoch
        let (days, msOfDay) = millis.floorDividedBy(86_400_000)
        // Civil-from-days (proleptic Gregorian), after Howard Hinnant's published algorithm.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60000 % 60
        let second = msOfDay / 1000 % 60
        let ms = msOfDay % 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))."
            + "\(pad(ms, 3))Z"
    }

    private func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
        return value < 0 ? "-" + padded : padded
    }
}

extension Int64 {
    /// Quotient rounded toward negative infinity and the matching non-negative remainder.
    fileprivate func floorDividedBy(_ divisor: Int64) -> (Int64, Int64) {
        let q = self / divisor
        let r = self % divisor
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}
