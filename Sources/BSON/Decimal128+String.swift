/// Conversion between `Decimal128` and its string form, as the BSON Decimal128 specification defines it
/// (the General Decimal Arithmetic numeric-string grammar, with its to-scientific-string output).
extension Decimal128 {
    /// The smallest and largest exponents a coefficient of up to 34 digits can carry.
    static let minimumExponent = -6176
    static let maximumExponent = 6111
    static let maximumDigits = 34

    public static let nan = Decimal128(high: 0x7C00_0000_0000_0000, low: 0)
    public static let infinity = Decimal128(high: 0x7800_0000_0000_0000, low: 0)
    public static let negativeInfinity = Decimal128(high: 0xF800_0000_0000_0000, low: 0)

    /// A finite value `(-1)^negative × coefficient × 10^exponent`, or nil when the coefficient has more than
    /// 34 digits or the exponent is outside -6176...6111 (no clamping or rounding is done here).
    public init?(negative: Bool, coefficient: UInt128, exponent: Int) {
        guard coefficient <= Self.maxCoefficient,
            (Self.minimumExponent...Self.maximumExponent).contains(exponent)
        else { return nil }
        let biased = UInt64(exponent + Self.exponentBias)
        let high = (negative ? 1 << 63 : 0) | biased << 49 | UInt64(truncatingIfNeeded: coefficient >> 64)
        self.init(high: high, low: UInt64(truncatingIfNeeded: coefficient))
    }

    /// Parses a numeric string: an optional sign, digits with an optional decimal point, an optional
    /// exponent (`e`/`E`, optional sign, digits), or `Infinity`/`Inf`/`NaN` in any case. No whitespace.
    /// Returns nil for invalid syntax and for values that cannot be stored exactly (see `init(parsing:)`).
    public init?(_ string: String) {
        guard let value = try? Decimal128(parsing: string) else { return nil }
        self = value
    }

    /// Parses a numeric string, saying why it was rejected. The exponent is only a preferred representation:
    /// trailing zeros are dropped (or added) to bring it into range, and a value is clamped when that is
    /// exact. Anything that would need inexact rounding, overflow or underflow is an error, as the
    /// specification requires.
    public init(parsing string: String) throws(Decimal128ParsingError) {
        var utf8 = string.utf8[...]
        var negative = false
        if let first = utf8.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            negative = first == UInt8(ascii: "-")
            utf8 = utf8.dropFirst()
        }
        if let special = Self.special(utf8, negative: negative) {
            self = special
            return
        }

        // Significant digits only (leading zeros dropped), and how many digits followed the point.
        var digits: [UInt8] = []
        var fractionDigits = 0
        var sawDigit = false
        var sawPoint = false
        while let c = utf8.first {
            if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") {
                sawDigit = true
                if sawPoint { fractionDigits += 1 }
                if !(digits.isEmpty && c == UInt8(ascii: "0")) { digits.append(c - UInt8(ascii: "0")) }
            } else if c == UInt8(ascii: ".") {
                if sawPoint { throw Decimal128ParsingError(input: string, reason: "more than one decimal point") }
                sawPoint = true
            } else {
                break
            }
            utf8 = utf8.dropFirst()
        }
        guard sawDigit else { throw Decimal128ParsingError(input: string, reason: "no digits") }

        var exponent = 0
        if let c = utf8.first, c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            utf8 = utf8.dropFirst()
            var exponentNegative = false
            if let s = utf8.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") {
                exponentNegative = s == UInt8(ascii: "-")
                utf8 = utf8.dropFirst()
            }
            var sawExponentDigit = false
            while let d = utf8.first, d >= UInt8(ascii: "0") && d <= UInt8(ascii: "9") {
                sawExponentDigit = true
                // Saturate: far beyond any representable exponent, the exact value no longer matters.
                if exponent < 1_000_000_000_000 { exponent = exponent * 10 + Int(d - UInt8(ascii: "0")) }
                utf8 = utf8.dropFirst()
            }
            guard sawExponentDigit else {
                throw Decimal128ParsingError(input: string, reason: "exponent has no digits")
            }
            if exponentNegative { exponent = -exponent }
        }
        guard utf8.isEmpty else {
            throw Decimal128ParsingError(input: string, reason: "unexpected character")
        }
        exponent -= fractionDigits

        if digits.isEmpty {
            // Zero: clamping the exponent never changes the value.
            let clamped = min(max(exponent, Self.minimumExponent), Self.maximumExponent)
            self.init(negative: negative, coefficient: 0, exponent: clamped)!
            return
        }
        while digits.count > Self.maximumDigits {
            guard digits.last == 0 else {
                throw Decimal128ParsingError(
                    input: string, reason: "more than 34 significant digits (inexact rounding)")
            }
            digits.removeLast()
            exponent += 1
        }
        while exponent < Self.minimumExponent {
            guard digits.last == 0 else {
                throw Decimal128ParsingError(input: string, reason: "too small to represent exactly (underflow)")
            }
            digits.removeLast()
            exponent += 1
        }
        while exponent > Self.maximumExponent {
            guard digits.count < Self.maximumDigits else {
                throw Decimal128ParsingError(input: string, reason: "too large to represent (overflow)")
            }
            digits.append(0)
            exponent -= 1
        }
        var coefficient: UInt128 = 0
        for d in digits { coefficient = coefficient * 10 + UInt128(d) }
        self.init(negative: negative, coefficient: coefficient, exponent: exponent)!
    }

    private static func special(_ utf8: Substring.UTF8View, negative: Bool) -> Decimal128? {
        guard utf8.count == 3 || utf8.count == 8 else { return nil }
        // ASCII lowercase; other bytes are left alone and simply fail to match.
        let lowered = utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        if lowered.elementsEqual("inf".utf8) || lowered.elementsEqual("infinity".utf8) {
            return negative ? .negativeInfinity : .infinity
        }
        if lowered.elementsEqual("nan".utf8) {
            return negative ? Decimal128(high: 0xFC00_0000_0000_0000, low: 0) : .nan
        }
        return nil
    }
}

extension Decimal128: CustomStringConvertible {
    /// The specification's to-string form: plain notation when the exponent is at most zero and the adjusted
    /// exponent is at least -6, otherwise scientific (`1.05E+3`, `1E-7`); every NaN prints as `NaN`.
    public var description: String {
        switch parts {
        case .nan:
            return "NaN"
        case .infinity(let negative):
            return negative ? "-Infinity" : "Infinity"
        case .finite(let negative, let coefficient, let exponent):
            let digits = Array(String(coefficient).utf8)
            var out: [UInt8] = negative ? [UInt8(ascii: "-")] : []
            out.reserveCapacity(digits.count + 12)
            let adjusted = exponent + digits.count - 1
            if exponent <= 0 && adjusted >= -6 {
                let integerDigits = digits.count + exponent
                if exponent == 0 {
                    out += digits
                } else if integerDigits > 0 {
                    out += digits[..<integerDigits]
                    out.append(UInt8(ascii: "."))
                    out += digits[integerDigits...]
                } else {
                    out += Array("0.".utf8)
                    out += repeatElement(UInt8(ascii: "0"), count: -integerDigits)
                    out += digits
                }
            } else {
                out.append(digits[0])
                if digits.count > 1 {
                    out.append(UInt8(ascii: "."))
                    out += digits[1...]
                }
                out += Array((adjusted < 0 ? "E-" : "E+").utf8)
                out += Array(String(adjusted.magnitude).utf8)
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}

/// A string that is not a Decimal128 numeric string, or names a value Decimal128 cannot hold exactly.
public struct Decimal128ParsingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The rejected text (cut to 64 characters).
    public let input: String
    public let reason: String

    init(input: String, reason: String) {
        self.input = input.count > 64 ? String(input.prefix(64)) + "…" : input
        self.reason = reason
    }

    public var description: String { "invalid Decimal128 string \"\(input)\": \(reason)" }
}
