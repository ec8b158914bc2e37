import BSON
import Testing

/// Decimal128 string conversion per the BSON Decimal128 specification; vectors from decimal128-1.json.
@Suite struct Decimal128Tests {
    /// The 16 value bytes (little-endian, as in canonical BSON) and the canonical string.
    static let canonical: [(bytes: String, string: String)] = [
        ("0000000000000000000000000000007C", "NaN"),
        ("000000000000000000000000000000FC", "NaN"),
        ("0000000000000000000000000000007E", "NaN"),
        ("1200000000000000000000000000007E", "NaN"),
        ("00000000000000000000000000000078", "Infinity"),
        ("000000000000000000000000000000F8", "-Infinity"),
        ("0000000000000000000000000000106C", "0"),
        ("DCBA9876543210DEADBEEF00000010EC", "-0"),
        ("FFFFFFFFFFFFFFFFFFFFFFFFFFFF116C", "0E+3"),
        ("F2AF967ED05C82DE3297FF6FDE3CF22F", "0.000001234567890123456789012345678901234"),
        ("D2040000000000000000000000003430", "0.001234"),
        ("40EF5A07000000000000000000002A30", "0.00123400000"),
        ("01000000000000000000000000003E30", "0.1"),
        ("F2AF967ED05C82DE3297FF6FDE3CFC2F", "0.1234567890123456789012345678901234"),
        ("00000000000000000000000000004030", "0"),
        ("000000000000000000000000000040B0", "-0"),
        ("00000000000000000000000000003EB0", "-0.0"),
        ("02000000000000000000000000004030", "2"),
        ("D0070000000000000000000000003A30", "2.000"),
        ("F2AF967ED05C82DE3297FF6FDE3C4030", "1234567890123456789012345678901234"),
        ("FFFFFFFF638E8D37C087ADBE09ED0100", "9.999999999999999999999999999999999E-6143"),
        ("01000000000000000000000000000000", "1E-6176"),
        ("01000000000000000000000000000080", "-1E-6176"),
        ("F2AF967ED05C82DE3297FF6FDE3CF02F", "1.234567890123456789012345678901234E-7"),
        ("64000000000000000000000000002CB0", "-1.00E-8"),
        ("0000000000000000000000000000205F", "0E+6000"),
        ("00000000000000000000000000007A2B", "0E-611"),
        ("01000000000000000000000000004630", "1E+3"),
        ("1A040000000000000000000000004230", "1.050E+4"),
        ("69000000000000000000000000004230", "1.05E+3"),
        ("FFFFFFFFFFFFFFFFFFFFFFFFFFFF4030", "5192296858534827628530496329220095"),
        ("000000000A5BC138938D44C64D31FE5F", "1.000000000000000000000000000000000E+6144"),
        ("FFFFFFFF638E8D37C087ADBE09EDFF5F", "9.999999999999999999999999999999999E+6144"),
        ("0A00000000000000000000000000FE5F", "1.0E+6112"),
        ("000000000A5BC138938D44C64D31CC37", "1.000000000000000000000000000000000E+999"),
        ("0000000000000000000000000000FE5F", "0E+6111"),
        ("0000000000000000000000000000FEDF", "-0E+6111"),
        ("00000000000000000000000000000080", "-0E-6176"),
        ("79D9E0F9763ADA429D02000000005830", "1.2345689012345789012345E+34"),
        ("01000000000000000000000000007228", "1E-999"),
    ]

    static func decimal(fromLittleEndianHex hex: String) -> Decimal128 {
        let bytes = hexBytes(hex)
        let low = bytes[0..<8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let high = bytes[8..<16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Decimal128(high: high, low: low)
    }

    @Test func printsCanonicalStrings() {
        for (hex, string) in Self.canonical {
            #expect(Self.decimal(fromLittleEndianHex: hex).description == string, "\(hex)")
        }
    }

    @Test func parsesCanonicalStringsToTheSameBits() {
        // Only the cases whose string names exactly those bits (not NaN payloads or non-canonical zeros).
        let lossy: Set<String> = ["NaN", "0E+3"]
        for (hex, string) in Self.canonical
        where !lossy.contains(string) && !hex.hasPrefix("DCBA") && !hex.hasSuffix("106C") {
            #expect(Decimal128(string) == Self.decimal(fromLittleEndianHex: hex), "\(string)")
        }
        #expect(Decimal128("NaN") == Self.decimal(fromLittleEndianHex: "0000000000000000000000000000007C"))
    }

    @Test(arguments: [
        ("-100E-10", "-1.00E-8"), ("1E3", "1E+3"), ("1e+3", "1E+3"),
        ("12345689012345789012345E+12", "1.2345689012345789012345E+34"),
        ("+1234567890123456789012345678901234", "1234567890123456789012345678901234"),
        ("." + String(repeating: "0", count: 998) + "1", "1E-999"),
        ("nan", "NaN"), ("nAn", "NaN"), ("-NaN", "NaN"), ("+infinity", "Infinity"), ("infiniTY", "Infinity"),
        ("inf", "Infinity"), ("inF", "Infinity"), ("-infiniTy", "-Infinity"), ("-Inf", "-Infinity"),
        ("10E-6177", "1E-6176"), ("1E6112", "1.0E+6112"),
        ("1" + String(repeating: "0", count: 999), "1.000000000000000000000000000000000E+999"),
        ("0E+9999999999", "0E+6111"), ("0E-9999999999", "0E-6176"), ("-0E+9999999999", "-0E+6111"),
        ("-0E-9999999999", "-0E-6176"), ("017.", "17"), (".5", "0.5"), ("+0.003", "0.003"), ("0.73e-7", "7.3E-8"),
        ("4E+9", "4E+9"), ("12.70", "12.70"), ("-76", "-76"), ("0.00", "0.00"), ("1000", "1000"),
        ("0.0000001", "1E-7"), ("0.000001", "0.000001"), ("00000000000000000000000000000000000000000001", "1"),
    ])
    func parsesNonCanonicalStrings(_ input: String, _ printed: String) {
        #expect(Decimal128(input)?.description == printed, "\(input)")
    }

    @Test func negativeNaNKeepsItsSignBit() {
        #expect(Decimal128("-NaN") == Self.decimal(fromLittleEndianHex: "000000000000000000000000000000FC"))
    }

    @Test(arguments: [
        "", "+", "-", ".", "-.", "+.e1", "E02", "e+02", "..1", "1..", "1.0.0", "1abcede", "1.24abc", "1.24E+02abc2d",
        "1E", "1e", "1E+", "1e-", " 1", "1 ", "1,0", "0x10", "I", "i", "in", "infin", "Infinit", "infinityy", "na",
        "NaN1", "nan0", "+-1", "-+1", "1e+-2", "１", "inf\0",
        // more than 34 significant digits that are not trailing zeros: inexact rounding
        "1.1111111111111111111111111111123451", "12345678901234567890123456789012345",
        // overflow and underflow
        "1E+6145", "10E+6144", "9.999999999999999999999999999999999E+6145", "1E-6177", "15E-6178",
    ])
    func rejectsInvalidStrings(_ input: String) {
        #expect(Decimal128(input) == nil, "\(input)")
        #expect(throws: Decimal128ParsingError.self) { try Decimal128(parsing: input) }
    }

    @Test func parsingErrorSaysWhy() {
        do {
            _ = try Decimal128(parsing: "12345678901234567890123456789012345")
            Issue.record("parsed an inexact value")
        } catch {
            #expect(error.reason == "more than 34 significant digits (inexact rounding)")
            #expect(error.description.hasPrefix("invalid Decimal128 string \"12345678901234567890123456789012345\""))
        }
        // Trailing zeros beyond 34 digits are exact and only move the exponent.
        #expect(
            Decimal128("12345678901234567890123456789012340")?.description == "1.234567890123456789012345678901234E+34")
    }

    @Test func partsAndDoubleValue() {
        #expect(Decimal128("-1.05E+3")?.parts == .finite(negative: true, coefficient: 105, exponent: 1))
        #expect(Decimal128("-1.05E+3")?.doubleValue == -1050)
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
        #expect(Decimal128("0E+6000")?.int64Value == 0)
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
