extension Decimal128 {
    static let maxExponent = 6111
    static let minExponent = -6176
    static let maxDigits = 34

    /// Parses a numeric string as the BSON Decimal128 specification defines it: an optional sign, digits with an
    /// optional decimal point, an optional exponent (`E`/`e`), or `Infinity`, `Inf`, `NaN` in any case.
    ///
    /// Values that need clamping are clamped; values that would need inexact rounding, overflow or underflow are
    /// rejected (nil), as are malformed strings.
    public init?(_ string: String) {
        var string = string
        guard let value = string.withUTF8({ Decimal128.parse($0) }) else { return nil }
        self = value
    }

    /// The value as a string, as the BSON Decimal128 specification prints it: plain notation when the exponent is
    /// at most zero and the adjusted exponent is at least -6, scientific notation (`1.23E+5`) otherwise.
    public var description: String {
        var out: [UInt8] = []
        appendDescription(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Decimal128? {
        var i = 0
        let n = text.count
        var negative = false
        if i < n, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
            negative = text[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < n else { return nil }
        if !isDigit(text[i]) && text[i] != UInt8(ascii: ".") {
            let word = String(decoding: UnsafeBufferPointer(rebasing: text[i...]), as: UTF8.self).lowercased()
            switch word {
            case "infinity", "inf": return negative ? .negativeInfinity : .infinity
            case "nan": return .nan
            default: return nil
            }
        }

        // Significant digits (leading zeros dropped), and how many of all digits came after the point.
        var digits: [UInt8] = []
        var sawDigit = false
        var sawPoint = false
        var fractionDigits = 0
        while i < n {
            let c = text[i]
            if isDigit(c) {
                sawDigit = true
                if sawPoint { fractionDigits += 1 }
                if !(digits.isEmpty && c == UInt8(ascii: "0")) { digits.append(c - UInt8(ascii: "0")) }
            } else if c == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                break
            }
            i += 1
        }
        guard sawDigit else { return nil }

        var exponentPart = 0
        if i < n {
            guard text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") else { return nil }
            i += 1
            var exponentNegative = false
            if i < n, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
                exponentNegative = text[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < n else { return nil }
            while i < n {
                guard isDigit(text[i]) else { return nil }
                // Saturate: any exponent this large already overflows or underflows by any digit count we accept.
                if exponentPart < 100_000_000 { exponentPart = exponentPart * 10 + Int(text[i] - UInt8(ascii: "0")) }
                i += 1
            }
            if exponentNegative { exponentPart = -exponentPart }
        }

        var exponent = exponentPart - fractionDigits
        // Round away trailing zeros while there are too many digits; any other digit would be an inexact rounding.
        while digits.count > maxDigits {
            guard digits.last == 0 else { return nil }
            digits.removeLast()
            exponent += 1
        }
        while exponent < minExponent {
            if digits.isEmpty {
                exponent = minExponent
                break
            }
            guard digits.last == 0 else { return nil }
            digits.removeLast()
            exponent += 1
        }
        // Clamp: add zeros to the coefficient to bring the exponent into range.
        while exponent > maxExponent {
            if digits.isEmpty {
                exponent = maxExponent
                break
            }
            guard digits.count < maxDigits else { return nil }
            digits.append(0)
            exponent -= 1
        }

        var coefficient: UInt128 = 0
        for d in digits { coefficient = coefficient * 10 + UInt128(d) }
        let biased = UInt64(exponent - minExponent)
        let high = (negative ? UInt64(1) << 63 : 0) | biased << 49 | UInt64(truncatingIfNeeded: coefficient >> 64)
        return Decimal128(high: high, low: UInt64(truncatingIfNeeded: coefficient))
    }

    static let infinity = Decimal128(high: 0x7800_0000_0000_0000, low: 0)
    static let negativeInfinity = Decimal128(high: 0xF800_0000_0000_0000, low: 0)
    static let nan = Decimal128(high: 0x7C00_0000_0000_0000, low: 0)

    /// Appends the specification's string form to a UTF-8 buffer (the Extended JSON writer's fast path).
    func appendDescription(to out: inout [UInt8]) {
        switch parts {
        case .nan:
            out.append(contentsOf: "NaN".utf8)
        case .infinity(let negative):
            out.append(contentsOf: (negative ? "-Infinity" : "Infinity").utf8)
        case .finite(let negative, let coefficient, let exponent):
            if negative { out.append(UInt8(ascii: "-")) }
            var digits: [UInt8] = []
            var c = coefficient
            repeat {
                digits.append(UInt8(c % 10) + UInt8(ascii: "0"))
                c /= 10
            } while c > 0
            digits.reverse()
            let adjusted = exponent + digits.count - 1
            if exponent > 0 || adjusted < -6 {
                out.append(digits[0])
                if digits.count > 1 {
                    out.append(UInt8(ascii: "."))
                    out.append(contentsOf: digits[1...])
                }
                out.append(UInt8(ascii: "E"))
                out.append(adjusted < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                out.append(contentsOf: String(adjusted.magnitude).utf8)
            } else if exponent == 0 {
                out.append(contentsOf: digits)
            } else {
                let fraction = -exponent
                if digits.count > fraction {
                    out.append(contentsOf: digits[..<(digits.count - fraction)])
                    out.append(UInt8(ascii: "."))
                    out.append(contentsOf: digits[(digits.count - fraction)...])
                } else {
                    out.append(contentsOf: "0.".utf8)
                    out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: fraction - digits.count))
                    out.append(contentsOf: digits)
                }
            }
        }
    }

    private static func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }
}

extension Decimal128: CustomStringConvertible {}
