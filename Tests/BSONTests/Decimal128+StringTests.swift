import BSON
import Testing

@Suite struct Decimal128StringTests {
    @Test(arguments: [
        ("0", "0"), ("-0", "-0"), ("1", "1"), ("-1", "-1"), ("12.70", "12.70"), ("+0.003", "0.003"), ("017.", "17"),
        (".5", "0.5"), ("4E+9", "4E+9"), ("0.73e-7", "7.3E-8"), ("1234.5", "1234.5"), ("0.000001", "0.000001"),
        ("0.0000001", "1E-7"), ("1E+3", "1E+3"), ("1.000E+3", "1000"), ("-0.00", "-0.00"), ("0E+3", "0E+3"),
        ("Inf", "Infinity"), ("-infinity", "-Infinity"), ("NaN", "NaN"), ("-nan", "NaN"),
        ("9999999999999999999999999999999999", "9999999999999999999999999999999999"),
        ("1.000000000000000000000000000000000E+6144", "1.000000000000000000000000000000000E+6144"),
        ("1E-6176", "1E-6176"), ("-1E-6176", "-1E-6176"), ("0E+6112", "0E+6111"), ("0E-6177", "0E-6176"),
        ("1E+6112", "1.0E+6112"), ("12345678901234567890123456789012340", "1.234567890123456789012345678901234E+34"),
        ("10E-6177", "1E-6176"),
    ])
    func parsesAndPrintsPerTheSpecification(text: String, printed: String) throws {
        #expect(try #require(Decimal128(text)).description == printed)
    }

    @Test(arguments: [
        "", ".", "-", "+", "E5", "1E", "1e+", "1.2.3", "1 ", " 1", "Infinit", "NaN1", "sNaN", "0x1", "1E+6145",
        "12345678901234567890123456789012345", "1E-6177", "10000000000000000000000000000000000E+6111",
    ])
    func rejectsMalformedOrInexactText(text: String) {
        #expect(Decimal128(text) == nil, "\(text)")
    }

    @Test func encodesTheBinaryIntegerDecimalBits() throws {
        #expect(try #require(Decimal128("1")) == Decimal128(high: 0x3040_0000_0000_0000, low: 1))
        #expect(try #require(Decimal128("-1.0")) == Decimal128(high: 0xB03E_0000_0000_0000, low: 10))
        #expect(try #require(Decimal128("Infinity")) == Decimal128(high: 0x7800_0000_0000_0000, low: 0))
        #expect(try #require(Decimal128("NaN")) == Decimal128(high: 0x7C00_0000_0000_0000, low: 0))
        #expect(
            try #require(Decimal128("9999999999999999999999999999999999"))
                == Decimal128(high: 0x3041_ED09_BEAD_87C0, low: 0x378D_8E63_FFFF_FFFF))
    }
}
