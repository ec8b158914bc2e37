import BSON
import Testing

/// Decimal128 string conversion per the BSON Decimal128 specification. The bits of every value in
/// `canonical` and `printedOnly` come from pymongo's `bson.decimal128` (an implementation independent of
/// ours), except the NaNs, whose bits are set by hand as the specification lays them out: 0x7C in the top
/// byte for a NaN, 0x7E for a signalling one, with the sign bit and any payload.
@Suite struct Decimal128Tests {
    /// The 16 value bytes (little-endian, as in canonical BSON) of values that print as, and parse from,
    /// exactly this string.
    static let canonical: [(bytes: String, string: String)] = [
        ("0000000000000000000000000000007C", "NaN"),
        ("00000000000000000000000000000078", "Infinity"),
        ("000000000000000000000000000000F8", "-Infinity"),
        ("00000000000000000000000000004030", "0"),
        ("000000000000000000000000000040B0", "-0"),
        ("00000000000000000000000000003AB0", "-0.000"),
        ("00000000000000000000000000004E30", "0E+7"),
        ("0000000000000000000000000000C82A", "0E-700"),
        ("00000000000000000000000000005057", "0E+5000"),
        ("00000000000000000000000000002E2A", "0E-777"),
        ("0000000000000000000000000000FE5F", "0E+6111"),
        ("0000000000000000000000000000FEDF", "-0E+6111"),
        ("00000000000000000000000000000080", "-0E-6176"),
        ("07000000000000000000000000004030", "7"),
        ("581B0000000000000000000000003A30", "7.000"),
        ("2A000000000000000000000000003830", "0.0042"),
        ("A0680600000000000000000000003030", "0.00420000"),
        ("03000000000000000000000000003E30", "0.3"),
        ("6D600000000000000000000000003E30", "2468.5"),
        ("34BBBD5982EBE6BAD42B4780F3E6FD2F", "0.9876543210987654321098765432109876"),
        ("34BBBD5982EBE6BAD42B4780F3E6F32F", "0.000009876543210987654321098765432109876"),
        ("34BBBD5982EBE6BAD42B4780F3E6ED2F", "9.876543210987654321098765432109876E-9"),
        ("34BBBD5982EBE6BAD42B4780F3E64130", "9876543210987654321098765432109876"),
        ("34BBBD5982EBE6BAD42B4780F3E64330", "9.876543210987654321098765432109876E+34"),
        ("A40100000000000000000000000026B0", "-4.20E-11"),
        ("2A000000000000000000000000003030", "4.2E-7"),
        ("05000000000000000000000000004630", "5E+3"),
        ("FE0B0000000000000000000000004630", "3.070E+6"),
        ("FE0B00000000000000000000000046B0", "-3.070E+6"),
        ("EBC51FDAAE8ECE2CDB01000000005230", "8.765432109876543210987E+30"),
        ("03000000000000000000000000005029", "3E-888"),
        ("000000003C22885473519BA5D227EF36", "6.000000000000000000000000000000000E+888"),
        // The largest coefficient, the largest and smallest magnitudes, and values at the exponent's ends.
        ("FFFFFFFFFFFFFFFFFFFFFFFFFFFF4030", "5192296858534827628530496329220095"),
        ("FFFFFFFF638E8D37C087ADBE09EDFF5F", "9.999999999999999999999999999999999E+6144"),
        ("00000000286C05E34C36121937C5FE5F", "4.000000000000000000000000000000000E+6144"),
        ("2800000000000000000000000000FE5F", "4.0E+6112"),
        ("711CC771F8FCA64707866A5B797F0100", "7.777777777777777777777777777777777E-6143"),
        ("01000000000000000000000000000000", "1E-6176"),
        ("03000000000000000000000000000080", "-3E-6176"),
    ]

    /// Bits that print as the string but are not what parsing it gives: NaNs with a sign, a payload or the
    /// signalling bit all print as `NaN`, an infinity ignores its other bits, and a coefficient in the
    /// "11" combination form is larger than any valid one and so zero, with its exponent.
    static let printedOnly: [(bytes: String, string: String)] = [
        ("2A00000000000000000000000000007C", "NaN"),
        ("000000000000000000000000000000FC", "NaN"),
        ("0000000000000000000000000000007E", "NaN"),
        ("000000000000000000000000000000FE", "NaN"),
        ("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFF7F", "NaN"),
        ("12345600000000000000000000000078", "Infinity"),
        ("5A5A5A5A5A5A5A5A5A5A5A5A5A5A326C", "0E+68"),
        ("0123456789ABCDEF0123456789AB20EC", "-0E+33"),
        ("00000000000000000000000000E0476C", "0E+111"),
    ]

    static func decimal(fromLittleEndianHex hex: String) -> Decimal128 {
        let bytes = hexBytes(hex)
        let low = bytes[0..<8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let high = bytes[8..<16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Decimal128(high: high, low: low)
    }

    @Test func printsCanonicalStrings() {
        for (hex, string) in Self.canonical + Self.printedOnly {
            #expect(Self.decimal(fromLittleEndianHex: hex).description == string, "\(hex)")
        }
    }

    @Test func parsesCanonicalStringsToTheSameBits() {
        for (hex, string) in Self.canonical {
            #expect(Decimal128(string) == Self.decimal(fromLittleEndianHex: hex), "\(string)")
        }
    }

    @Test(arguments: [
        ("-250E-11", "-2.50E-9"), ("5E3", "5E+3"), ("5e+3", "5E+3"),
        ("87654321098765432109876E+8", "8.7654321098765432109876E+30"),
        ("+9876543210987654321098765432109876", "9876543210987654321098765432109876"),
        ("." + String(repeating: "0", count: 887) + "3", "3E-888"),
        ("NAN", "NaN"), ("naN", "NaN"), ("-nan", "NaN"), ("+INFINITY", "Infinity"), ("Infinity", "Infinity"),
        ("INF", "Infinity"), ("iNf", "Infinity"), ("-INFINITY", "-Infinity"), ("-iNF", "-Infinity"),
        ("70E-6177", "7E-6176"), ("30E-6177", "3E-6176"), ("4E6112", "4.0E+6112"),
        ("6" + String(repeating: "0", count: 888), "6.000000000000000000000000000000000E+888"),
        ("0E+8888888888", "0E+6111"), ("0E-8888888888", "0E-6176"), ("-0E+8888888888", "-0E+6111"),
        ("-0E-8888888888", "-0E-6176"), ("0042.", "42"), (".25", "0.25"), ("+0.0007", "0.0007"),
        ("0.58e-9", "5.8E-10"), ("6E+8", "6E+8"), ("31.40", "31.40"), ("-93", "-93"), ("0.000", "0.000"),
        ("5000", "5000"), ("0.0000007", "7E-7"), ("0.000007", "0.000007"),
        ("000000000000000000000000000000000000000000000007", "7"),
    ])
    func parsesNonCanonicalStrings(_ input: String, _ printed: String) {
        #expect(Decimal128(input)?.description == printed, "\(input)")
    }

    @Test func negativeNaNKeepsItsSignBit() {
        #expect(Decimal128("-NaN") == Self.decimal(fromLittleEndianHex: "000000000000000000000000000000FC"))
    }

    @Test(arguments: [
        "", "+", "-", ".", "-.", "+.e7", "E7", "e-7", "..3", "3..", "3.0.0", "3xyz", "3.5abc", "3.5E+07abc",
        "3E", "3e", "3E+", "3e-", " 3", "3 ", "3,5", "0x1F", "I", "n", "infi", "Infinite", "infinityx", "nanny",
        "nan7", "NaNa", "+-3", "-+3", "3e+-2", "３", "nan\0",
        // more than 34 significant digits that are not trailing zeros: inexact rounding (pymongo refuses them too)
        "2.2222222222222222222222222222222229", "98765432109876543210987654321098765",
        // overflow and underflow (as pymongo finds)
        "7E+6145", "70E+6144", "5.000000000000000000000000000000001E+6145", "3E-6177", "25E-6178",
    ])
    func rejectsInvalidStrings(_ input: String) {
        #expect(Decimal128(input) == nil, "\(input)")
        #expect(throws: Decimal128ParsingError.self) { try Decimal128(parsing: input) }
    }

    @Test func parsingErrorSaysWhy() {
        do {
            _ = try Decimal128(parsing: "98765432109876543210987654321098765")
            Issue.record("parsed an inexact value")
        } catch {
            #expect(error.reason == "more than 34 significant digits (inexact rounding)")
            #expect(error.description.hasPrefix("invalid Decimal128 string \"98765432109876543210987654321098765\""))
        }
        // Trailing zeros beyond 34 digits are exact and only move the exponent.
        #expect(
            Decimal128("98765432109876543210987654321098760")?.description == "9.876543210987654321098765432109876E+34")
    }

    @Test func partsAndDoubleValue() {
        #expect(Decimal128("-3.070E+6")?.parts == .finite(negative: true, coefficient: 3070, exponent: 3))
        #expect(Decimal128("-3.070E+6")?.doubleValue == -3_070_000)
        #expect(Decimal128("0.1")?.doubleValue == 0.1)
        #expect(Decimal128("-Infinity")?.doubleValue == -.infinity)
        #expect(Decimal128("NaN")?.doubleValue?.isNaN == true)
        #expect(Decimal128("1E-6176")?.doubleValue == 0)
        #expect(Decimal128("9.999999999999999999999999999999999E+6144")?.doubleValue == .infinity)
    }

    @Test func int64ValueIsExact() {
        #expect(Decimal128("1.000E+3")?.int64Value == 1000)
        #expect(Decimal128("9007199254740993")?.int64Value == 9_007_199_254_740_993)
        #expect(Decimal128("-9223372036854775808")?.int64Value == .min)
        #expect(Decimal128("9223372036854775808")?.int64Value == nil)
        #expect(Decimal128("1.5")?.int64Value == nil)
        #expect(Decimal128("0E+5000")?.int64Value == 0)
        #expect(Decimal128("NaN")?.int64Value == nil)
    }

    @Test func randomBitsPrintAndParseBackToTheSameValue() {
        var generator = SeededGenerator(seed: 128)
        for _ in 0..<5_000 {
            let value = Decimal128(high: generator.next(), low: generator.next())
            let printed = value.description
            let reparsed = Decimal128(printed)
            #expect(reparsed?.description == printed, "\(value.high) \(value.low)")
            #expect(reparsed.map { BSON.compare(.decimal128($0), .decimal128(value)) } == 0)
        }
    }
}
