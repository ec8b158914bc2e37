import BSON
import Testing

@Suite struct Decimal128StringTests {
    // Expected strings as pymongo's `bson.decimal128` prints them.
    @Test(arguments: [
        ("0", "0"), ("-0", "-0"), ("1", "1"), ("-1", "-1"), ("31.40", "31.40"), ("+0.0007", "0.0007"), ("0042.", "42"),
        (".25", "0.25"), ("6E+8", "6E+8"), ("0.58e-9", "5.8E-10"), ("2468.5", "2468.5"), ("0.000007", "0.000007"),
        ("0.0000007", "7E-7"), ("5E+3", "5E+3"), ("7.000E+3", "7000"), ("-0.000", "-0.000"), ("0E+7", "0E+7"),
        ("Inf", "Infinity"), ("-infinity", "-Infinity"), ("NaN", "NaN"), ("-nan", "NaN"),
        ("9999999999999999999999999999999999", "9999999999999999999999999999999999"),
        ("4.000000000000000000000000000000000E+6144", "4.000000000000000000000000000000000E+6144"),
        ("1E-6176", "1E-6176"), ("-3E-6176", "-3E-6176"), ("0E+6112", "0E+6111"), ("0E-6177", "0E-6176"),
        ("4E+6112", "4.0E+6112"), ("98765432109876543210987654321098760", "9.876543210987654321098765432109876E+34"),
        ("70E-6177", "7E-6176"),
    ])
    func parsesAndPrintsPerTheSpecification(text: String, printed: String) throws {
        #expect(try #require(Decimal128(text)).description == printed)
    }

    @Test(arguments: [
        "", ".", "-", "+", "E9", "4E", "4e+", "4.5.6", "4 ", " 4", "Infinite", "NaN4", "sNaN", "0x4", "7E+6145",
        "98765432109876543210987654321098765", "3E-6177", "70000000000000000000000000000000000E+6111",
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
