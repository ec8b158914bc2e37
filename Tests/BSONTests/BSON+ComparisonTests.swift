import BSON
import Testing

@Suite struct BSONComparisonTests {
    static func sign(_ x: Int) -> Int { x == 0 ? 0 : (x < 0 ? -1 : 1) }

    /// One value of each type, in MongoDB's cross-type order.
    static let ordered: [BSON] = [
        .minKey,
        .undefined,
        .null,
        .int32(5),
        .string("a"),
        ["a": 1],
        [1],
        .binary(BSONBinary(data: [1])),
        .objectId(ObjectId(hex: "000000000000000000000001")!),
        .bool(false),
        .datetime(BSONDate(millisecondsSinceEpoch: 0)),
        .timestamp(BSONTimestamp(time: 0, increment: 0)),
        .regex(BSONRegularExpression(pattern: "a")),
        .dbPointer(BSONDBPointer(namespace: "db.c", id: ObjectId(hex: "000000000000000000000001")!)),
        .javascript("f"),
        .javascriptWithScope(BSONCodeWithScope(code: "f", scope: [:])),
        .maxKey,
    ]

    @Test func typesSortInMongoDBOrder() {
        for (i, a) in Self.ordered.enumerated() {
            for (j, b) in Self.ordered.enumerated() {
                #expect(Self.sign(BSON.compare(a, b)) == Self.sign(i - j), "\(a.typeName) vs \(b.typeName)")
            }
        }
    }

    @Test func bigNumbersStillSortBelowStringsAndSymbolsWithStrings() {
        #expect(BSON.compare(.double(.infinity), .string("")) < 0)
        #expect(BSON.compare(.decimal128(Decimal128("9E+6144")!), .string("")) < 0)
        #expect(BSON.compare(.symbol("b"), .string("a")) > 0)
        #expect(BSON.compare(.symbol("a"), .string("a")) == 0)
        #expect(BSON.compare(.bool(true), .datetime(BSONDate(millisecondsSinceEpoch: .min))) < 0)
    }

    @Test func numbersCompareByValueAcrossTypes() {
        let one: [BSON] = [.int32(1), .int64(1), .double(1.0), .decimal128(Decimal128("1.000")!)]
        for a in one {
            for b in one { #expect(BSON.compare(a, b) == 0, "\(a) vs \(b)") }
            #expect(BSON.equivalent(a, .double(1)))
        }
        let ascending: [BSON] = [
            .double(.nan), .double(-.infinity), .decimal128(Decimal128("-1E+20")!), .int64(.min), .int32(-2),
            .double(-1.5), .decimal128(Decimal128("-0.1")!), .int32(0), .decimal128(Decimal128("1E-6176")!),
            .double(0.5), .int64(1), .decimal128(Decimal128("1.0000000000000000000000000000001")!), .double(2),
            .int32(.max), .int64(.max), .decimal128(Decimal128("1E+6000")!), .double(.infinity),
        ]
        for (i, a) in ascending.enumerated() {
            for (j, b) in ascending.enumerated() {
                #expect(Self.sign(BSON.compare(a, b)) == Self.sign(i - j), "\(a) vs \(b)")
            }
        }
    }

    @Test func zerosAndNaNs() {
        #expect(BSON.compare(.double(-0.0), .int32(0)) == 0)
        #expect(BSON.compare(.decimal128(Decimal128("-0E+10")!), .double(0)) == 0)
        #expect(BSON.compare(.double(.nan), .decimal128(.nan)) == 0)
        #expect(BSON.compare(.double(.nan), .int64(.min)) < 0)
        #expect(BSON.compare(.decimal128(.nan), .double(-.infinity)) < 0)
        #expect(BSON.compare(.decimal128(.negativeInfinity), .double(-.infinity)) == 0)
    }

    @Test func int64AgainstDoubleDoesNotRoundTheInteger() {
        let twoTo53 = Double(1 << 53)
        #expect(BSON.compare(.int64(1 << 53 + 1), .double(twoTo53)) > 0)
        #expect(BSON.compare(.double(twoTo53), .int64(1 << 53 + 1)) < 0)
        #expect(BSON.compare(.int64(1 << 53), .double(twoTo53)) == 0)
        #expect(BSON.compare(.int64(.max), .double(9_223_372_036_854_775_808.0)) < 0)
        #expect(BSON.compare(.int64(.min), .double(-9_223_372_036_854_775_808.0)) == 0)
        #expect(BSON.compare(.int64(3), .double(2.5)) > 0)
        #expect(BSON.compare(.int64(-3), .double(-2.5)) < 0)
        #expect(BSON.compare(.decimal128(Decimal128("9007199254740993")!), .int64(1 << 53)) > 0)
    }

    @Test func decimalAgainstDoubleUsesTheDoublesExactValue() {
        // 0.1 as a double is 0.1000000000000000055511151231257827…, above the decimal 0.1.
        #expect(BSON.compare(.decimal128(Decimal128("0.1")!), .double(0.1)) < 0)
        #expect(BSON.compare(.decimal128(Decimal128("0.5")!), .double(0.5)) == 0)
        #expect(BSON.compare(.double(1e300), .decimal128(Decimal128("1E+301")!)) < 0)
    }

    @Test func documentsCompareFieldByField() {
        #expect(BSON.compare(["a": 1], ["a": 2]) < 0)
        #expect(BSON.compare(["a": 1], ["a": 1, "b": 0]) < 0)
        #expect(BSON.compare(["a": 1, "b": 2], ["a": 1.0, "b": 2]) == 0)
        // The value's type is compared before the field name.
        #expect(BSON.compare(["b": 1], ["a": "x"]) < 0)
        #expect(BSON.compare(["a": 1], ["b": 1]) < 0)
        // Field order matters.
        #expect(BSON.compare(["a": 1, "b": 1], ["b": 1, "a": 1]) < 0)
        #expect(BSON.compare([:], ["a": .minKey]) < 0)
    }

    @Test func arraysCompareElementByElement() {
        #expect(BSON.compare([1, 2], [1, 3]) < 0)
        #expect(BSON.compare([1, 2], [1, 2, 0]) < 0)
        #expect(BSON.compare([], [.minKey]) < 0)
        #expect(BSON.compare([2], [1, 5]) > 0)
        #expect(BSON.compare([1, "a"], [1.0, "a"]) == 0)
    }

    @Test func binaryComparesByLengthThenSubtypeThenBytes() {
        let short = BSON.binary(BSONBinary(subtype: 0x80, data: [9]))
        let long = BSON.binary(BSONBinary(subtype: 0, data: [0, 0]))
        #expect(BSON.compare(short, long) < 0)
        #expect(
            BSON.compare(.binary(BSONBinary(subtype: 0, data: [9])), .binary(BSONBinary(subtype: 4, data: [0]))) < 0)
        #expect(
            BSON.compare(.binary(BSONBinary(subtype: 0, data: [1, 2])), .binary(BSONBinary(subtype: 0, data: [1, 3])))
                < 0)
    }

    @Test func otherTypesCompareByTheirContent() {
        #expect(BSON.compare("a", "b") < 0)
        #expect(BSON.compare("Z", "a") < 0)  // bytes, not locale
        #expect(BSON.compare("a", "ab") < 0)
        #expect(BSON.compare(.bool(false), .bool(true)) < 0)
        #expect(
            BSON.compare(
                .datetime(BSONDate(millisecondsSinceEpoch: -1)), .datetime(BSONDate(millisecondsSinceEpoch: 0))) < 0)
        #expect(
            BSON.compare(
                .timestamp(BSONTimestamp(time: 1, increment: 9)), .timestamp(BSONTimestamp(time: 2, increment: 0))) < 0)
        #expect(
            BSON.compare(
                .regex(BSONRegularExpression(pattern: "a", options: "i")), .regex(BSONRegularExpression(pattern: "a")))
                > 0)
        let id = ObjectId(hex: "000000000000000000000001")!
        #expect(
            BSON.compare(
                .dbPointer(BSONDBPointer(namespace: "zz", id: id)), .dbPointer(BSONDBPointer(namespace: "aaa", id: id)))
                < 0)
        #expect(
            BSON.compare(
                .javascriptWithScope(BSONCodeWithScope(code: "f", scope: ["a": 1])),
                .javascriptWithScope(BSONCodeWithScope(code: "f", scope: ["a": 2]))) < 0)
        #expect(BSON.compare(.maxKey, .maxKey) == 0)
    }

    @Test func randomValuesGiveAConsistentOrder() {
        var random = RandomBSON(seed: 7)
        random.maximumDepth = 2
        let values = (0..<150).map { _ in random.value(depth: 1) }
        for a in values {
            #expect(BSON.compare(a, a) == 0)
            for b in values { #expect(Self.sign(BSON.compare(a, b)) == -Self.sign(BSON.compare(b, a))) }
        }
    }
}
