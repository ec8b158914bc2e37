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
