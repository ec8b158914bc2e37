#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IEEE 754-2008 decimal128 in the binary integer decimal (BID) encoding, as BSON stores it.
/// Parsed from and printed to strings exactly as the BSON Decimal128 specification describes; no arithmetic.
public struct Decimal128: Sendable, Hashable {
    /// The high and low 64 bits of the 128-bit little-endian value.
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }
}

extension Decimal128 {
    /// The value's parts as the BID encoding holds them.
    public enum Parts: Sendable, Equatable {
        case finite(negative: Bool, coefficient: UInt128, exponent: Int)
        case infinity(negative: Bool)
        case nan
    }

    static let exponentBias = 6176

    public var parts: Parts {
        let negative = high >> 63 == 1
        let combination = (high >> 58) & 0x1F
        if combination == 0x1F { return .nan }
        if combination == 0x1E { return .infinity(negative: negative) }
        let biasedExponent: UInt64
        let coefficientHigh: UInt64
        if (high >> 61) & 0x3 == 0x3 {
            // The "11" form: the coefficient would exceed 34 digits, so MongoDB treats it as zero.
            biasedExponent = (high >> 47) & 0x3FFF
            return .finite(negative: negative, coefficient: 0, exponent: Int(biasedExponent) - Self.exponentBias)
        } else {
            biasedExponent = (high >> 49) & 0x3FFF
            coefficientHigh = high & 0x1_FFFF_FFFF_FFFF
        }
        var coefficient = UInt128(coefficientHigh) << 64 | UInt128(low)
        // Coefficients above 10^34 - 1 are non-canonical and read as zero.
        if coefficient > Self.maxCoefficient { coefficient = 0 }
        return .finite(negative: negative, coefficient: coefficient, exponent: Int(biasedExponent) - Self.exponentBias)
    }

    static let maxCoefficient: UInt128 = 9_999_999_999_999_999_999_999_999_999_999_999

    /// The value as an Int64 when it is a whole number in range (`1.000E+3` is 1000; `1.5` is nil).
    public var int64Value: Int64? {
        guard case .finite(let negative, var coefficient, var exponent) = parts else { return nil }
        if coefficient == 0 { return 0 }
        while exponent < 0 {
            guard coefficient % 10 == 0 else { return nil }
            coefficient /= 10
            exponent += 1
        }
        while exponent > 0 {
            guard coefficient <= UInt128(Int64.max) else { return nil }
            coefficient *= 10
            exponent -= 1
        }
        if negative {
            guard coefficient <= UInt128(Int64.max) + 1 else { return nil }
            return coefficient == UInt128(Int64.max) + 1 ? .min : -Int64(coefficient)
        }
        return Int64(exactly: coefficient)
    }

    /// The nearest Double (for comparisons across numeric types).
    public var doubleValue: Double? {
        switch parts {
        case .nan: return .nan
        case .infinity(let negative): return negative ? -.infinity : .infinity
        case .finite(let negative, let coefficient, let exponent):
            // Parsing the decimal text rounds correctly, which scaling by powers of ten would not.
            return Double("\(negative ? "-" : "")\(coefficient)e\(exponent)")
        }
    }
}

extension Decimal128 {
    /// An integer exactly (19 digits always fit in 34).
    init(exactly integer: Int64) {
        self.init(negative: integer < 0, coefficient: UInt128(integer.magnitude), exponent: 0)!
    }

    /// A Double rounded to 34 significant digits, which is how MongoDB compares a decimal with a double.
    init(roundingTo34Digits double: Double) {
        if double.isNaN {
            self = .nan
        } else if double.isInfinite {
            self = double < 0 ? .negativeInfinity : .infinity
        } else {
            // glibc's printf converts binary to decimal exactly, rounding to the requested digits.
            var buffer = [CChar](repeating: 0, count: 64)
            let count = withVaList([double]) { vsnprintf(&buffer, buffer.count, "%.33e", $0) }
            let text = String(decoding: buffer.prefix(Int(max(count, 0))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            self = (try? Decimal128(parsing: text)) ?? .nan
        }
    }

    /// MongoDB's numeric order between two decimals, by value: NaN below everything (and equal to NaN),
    /// -0 equal to 0, `1.0` equal to `1`.
    static func compareValues(_ a: Decimal128, _ b: Decimal128) -> Int {
        switch (a.parts, b.parts) {
        case (.nan, .nan): return 0
        case (.nan, _): return -1
        case (_, .nan): return 1
        case (.infinity(let x), .infinity(let y)): return x == y ? 0 : (x ? -1 : 1)
        case (.infinity(let x), _): return x ? -1 : 1
        case (_, .infinity(let y)): return y ? 1 : -1
        case (.finite(let an, let ac, let ae), .finite(let bn, let bc, let be)):
            let aSign = ac == 0 ? 0 : (an ? -1 : 1)
            let bSign = bc == 0 ? 0 : (bn ? -1 : 1)
            if aSign != bSign { return aSign < bSign ? -1 : 1 }
            if aSign == 0 { return 0 }
            let magnitude = compareMagnitudes(ac, ae, bc, be)
            return aSign > 0 ? magnitude : -magnitude
        }
    }

    /// Compares two non-zero coefficient-and-exponent pairs by magnitude.
    private static func compareMagnitudes(_ ac: UInt128, _ ae: Int, _ bc: UInt128, _ be: Int) -> Int {
        let aAdjusted = ae + digitCount(ac) - 1
        let bAdjusted = be + digitCount(bc) - 1
        if aAdjusted != bAdjusted { return aAdjusted < bAdjusted ? -1 : 1 }
        // Same adjusted exponent: scaling the one with the larger exponent keeps it within 34 digits.
        var a = ac
        var b = bc
        if ae > be {
            for _ in 0..<(ae - be) { a *= 10 }
        } else {
            for _ in 0..<(be - ae) { b *= 10 }
        }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    private static func digitCount(_ value: UInt128) -> Int {
        var count = 1
        var power: UInt128 = 10
        while count < 39 && value >= power {
            count += 1
            power = power.multipliedReportingOverflow(by: 10).partialValue
        }
        return count
    }
}
