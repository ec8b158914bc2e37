import BSON
import Testing

@testable import DocumentStore

@Suite struct IndexKeyTests {
    static let ordered: [BSON] = [
        .minKey, .null, .double(-.infinity), .int64(Int64.min), .int32(-5), .double(-4.5), .int32(0), .double(0.5),
        .int32(1), .double(1.5), .int64(9_007_199_254_740_993), .int64(Int64.max), .double(.infinity), "", "a",
        "a\u{0}", "ab", "b", ["a": 1], ["a": 1, "b": 1], ["b": 0], [], [1], [1, 2], [2],
        .binary(BSONBinary(data: [9])), .binary(BSONBinary(data: [1, 2])),
        .objectId(ObjectId(hex: "000000000000000000000001")!),
        .objectId(ObjectId(hex: "ff0000000000000000000000")!), false, true,
        .datetime(BSONDate(millisecondsSinceEpoch: -1)), .datetime(BSONDate(millisecondsSinceEpoch: 5)),
        .timestamp(BSONTimestamp(time: 1, increment: 2)), .regex(BSONRegularExpression(pattern: "a")), .maxKey,
    ]

    @Test func byteOrderFollowsBSONCompare() throws {
        for (i, a) in Self.ordered.enumerated() {
            for b in Self.ordered[(i + 1)...] {
                let (ka, kb) = (try IndexKey.encode(a), try IndexKey.encode(b))
                #expect(BSON.compare(a, b) < 0, "fixture order \(a) < \(b)")
                #expect(ka.lexicographicallyPrecedes(kb), "\(a) should sort before \(b)")
            }
        }
    }

    @Test func numbersEqualAcrossTypesShareAKey() throws {
        #expect(try IndexKey.encode(.int32(1)) == IndexKey.encode(.double(1.0)))
        #expect(try IndexKey.encode(.int64(1)) == IndexKey.encode(.int32(1)))
        #expect(try IndexKey.encode(.double(-0.0)) == IndexKey.encode(.int32(0)))
        #expect(try IndexKey.encode(.int64(9_007_199_254_740_993)) != IndexKey.encode(.double(9_007_199_254_740_992)))
    }
}

@Suite struct DocumentEncodingTests {
    @Test func roundTripsEveryType() throws {
        let document: BSONDocument = [
            "_id": .objectId(ObjectId()), "d": 1.5, "s": "text", "doc": ["a": [1, "x", .null]],
            "bin": .binary(BSONBinary(subtype: 4, data: [1, 2])),
            "u": .undefined, "b": true, "date": .datetime(BSONDate(millisecondsSinceEpoch: 12)), "n": .null,
            "re": .regex(BSONRegularExpression(pattern: "^a", options: "i")), "js": .javascript("f()"),
            "sym": .symbol("s"),
            "i": .int32(-3), "ts": .timestamp(BSONTimestamp(time: 5, increment: 6)), "l": .int64(1 << 40),
            "dec": .decimal128(Decimal128(high: 0x3040_0000_0000_0000, low: 15)), "min": .minKey, "max": .maxKey,
            "ptr": .dbPointer(BSONDBPointer(namespace: "db.c", id: ObjectId())),
            "scope": .javascriptWithScope(BSONCodeWithScope(code: "x", scope: ["x": 1])),
        ]
        #expect(try DocumentEncoding.decode(DocumentEncoding.encode(document)) == document)
    }

    @Test func rejectsTruncatedBytes() throws {
        let bytes = try DocumentEncoding.encode(["title": "Dune", "year": 1965])
        for length in 0..<bytes.count {
            #expect(throws: StoreError.self) { try DocumentEncoding.decode(Array(bytes.prefix(length))) }
        }
    }

    @Test func rejectsNestingTooDeep() {
        var value: BSON = 1
        for _ in 0..<(BSONDocument.maximumNestingDepth + 10) { value = ["a": value] }
        #expect(throws: StoreError.self) { try DocumentEncoding.encode(["deep": value]) }
    }
}
