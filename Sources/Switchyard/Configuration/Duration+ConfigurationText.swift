import Foundation

extension Duration {
    /// Reads `500ms`, `2s`, `1m`, `1h` or a sum like `1m30s`, to the millisecond.
    init?(configurationText text: String) {
        var milliseconds: Int64 = 0
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 12, let amount = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            let unit = rest.prefix { $0.isASCII && $0.isLetter }
            rest = rest.dropFirst(unit.count)
            let scale: Int64
            switch unit {
            case "ms": scale = 1
            case "s": scale = 1000
            case "m": scale = 60_000
            case "h": scale = 3_600_000
            default: return nil
            }
            let (product, overflowed) = amount.multipliedReportingOverflow(by: scale)
            let (sum, sumOverflowed) = milliseconds.addingReportingOverflow(product)
            guard !overflowed, !sumOverflowed else { return nil }
            milliseconds = sum
        }
        self = .milliseconds(milliseconds)
    }

    /// The shortest exact spelling in the largest whole unit (`90s`, `2m`, `1500ms`).
    var configurationText: String {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        for (unit, scale) in [("h", Int64(3_600_000)), ("m", 60_000), ("s", 1000)]
        where milliseconds != 0 && milliseconds % scale == 0 {
            return "\(milliseconds / scale)\(unit)"
        }
        return "\(milliseconds)ms"
    }
}
