import BSON
import Testing

/// Canonical BSON from the BSON corpus (specifications repository, bson-corpus/tests), one case per type.
@Suite struct BSONDocumentBytesTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let hex: String
        let value: BSON
        var testDescription: String { name }
    }

    static let oid = ObjectId(hex: "57e193d7a9cc81b4027498b5")!

    static let vectors: [Vector] = [
        Vector(name: "double 1.0", hex: "10000000016400000000000000F03F00", value: ["d": 1.0]),
        Vector(name: "double -0.0", hex: "10000000016400000000000000008000", value: ["d": .double(-0.0)]),
        Vector(name: "double -Inf", hex: "10000000016400000000000000F0FF00", value: ["d": .double(-.infinity)]),
        Vector(
            name: "string with embedded NUL", hex: "13000000026100070000006162006261720000", value: ["a": "ab\0bar"]),
        Vector(name: "empty string", hex: "0D000000026100010000000000", value: ["a": ""]),
        Vector(name: "two-byte UTF-8", hex: "0F00000002610003000000C3A90000", value: ["a": "é"]),
        Vector(
            name: "subdocument with empty key", hex: "150000000378000D00000002000200000062000000",
            value: ["x": ["": "b"]]),
        Vector(name: "empty array", hex: "0D000000046100050000000000", value: ["a": []]),
        Vector(name: "array", hex: "140000000461000C0000001030000A0000000000", value: ["a": [10]]),
        Vector(
            name: "binary subtype 0", hex: "0F0000000578000200000000FFFF00",
            value: ["x": .binary(BSONBinary(data: [0xFF, 0xFF]))]),
        Vector(
            name: "binary old subtype 2", hex: "13000000057800060000000202000000FFFF00",
            value: ["x": .binary(BSONBinary(subtype: 2, data: [0xFF, 0xFF]))]),
        Vector(
            name: "binary UUID", hex: "1D000000057800100000000473FFD26444B34C6990E8E7D1DFC035D400",
            value: [
                "x": .binary(
                    BSONBinary(subtype: 4, data: hexBytes("73FFD26444B34C6990E8E7D1DFC035D4")))
            ]),
        Vector(
            name: "binary user subtype", hex: "0F0000000578000200000080FFFF00",
            value: ["x": .binary(BSONBinary(subtype: 0x80, data: [0xFF, 0xFF]))]),
        Vector(name: "undefined", hex: "0800000006610000", value: ["a": .undefined]),
        Vector(name: "ObjectId", hex: "1400000007610057E193D7A9CC81B4027498B500", value: ["a": .objectId(oid)]),
        Vector(name: "true", hex: "090000000862000100", value: ["b": true]),
        Vector(name: "false", hex: "090000000862000000", value: ["b": false]),
        Vector(
            name: "datetime negative", hex: "10000000096100C33CE7B9BDFFFFFF00",
            value: ["a": .datetime(BSONDate(millisecondsSinceEpoch: -284_643_869_501))]),
        Vector(name: "null", hex: "080000000A610000", value: ["a": .null]),
        Vector(
            name: "regex", hex: "0F0000000B610061626300696D0000",
            value: ["a": .regex(BSONRegularExpression(pattern: "abc", options: "im"))]),
        Vector(
            name: "DBPointer", hex: "1A0000000C610002000000620056E1FC72E0C917E9C471416100",
            value: [
                "a": .dbPointer(BSONDBPointer(namespace: "b", id: ObjectId(hex: "56e1fc72e0c917e9c4714161")!))
            ]),
        Vector(name: "code", hex: "130000000D6100070000006162636465660000", value: ["a": .javascript("abcdef")]),
        Vector(name: "symbol", hex: "0D0000000E6100010000000000", value: ["a": .symbol("")]),
        Vector(
            name: "code with scope", hex: "1A0000000F610012000000050000006162636400050000000000",
            value: ["a": .javascriptWithScope(BSONCodeWithScope(code: "abcd", scope: [:]))]),
        Vector(name: "int32 min", hex: "0C0000001069000000008000", value: ["i": .int32(.min)]),
        Vector(
            name: "timestamp", hex: "100000001161002A00000015CD5B0700",
            value: ["a": .timestamp(BSONTimestamp(time: 123_456_789, increment: 42))]),
        Vector(name: "int64 max", hex: "10000000126100FFFFFFFFFFFFFF7F00", value: ["a": .int64(.max)]),
        Vector(
            name: "decimal 0.1", hex: "1800000013640001000000000000000000000000003E3000",
            value: ["d": .decimal128(Decimal128("0.1")!)]),
        Vector(name: "minKey", hex: "08000000FF610000", value: ["a": .minKey]),
        Vector(name: "maxKey", hex: "080000007F610000", value: ["a": .maxKey]),
        Vector(name: "key starting with $", hex: "0F00000010246B6579002A00000000", value: ["$key": 42]),
    ]

    @Test(arguments: vectors)
    func decodesAndEncodesCanonicalBSON(_ vector: Vector) throws {
        let bytes = hexBytes(vector.hex)
        let document = try BSONDocument(bsonBytes: bytes)
        #expect(BSON.document(document) == vector.value)
        #expect(hexString(try document.bsonBytes) == vector.hex.uppercased())
        #expect(document.encodedSize == bytes.count)
    }

    @Test func allTypesDocumentFromTheCorpusRoundTrips() throws {
        // multi-type-deprecated.json: every type, including symbol, DBPointer and undefined.
        let hex =
            "3B020000075F69640057E193D7A9CC81B4027498B50E53796D626F6C000700000073796D626F6C0002537472696E670007000000737472696E670010496E743332002A00000012496E743634002A0000000000000001446F75626C6500000000000000F0BF0542696E617279001000000003A34C38F7C3ABEDC8A37814A992AB8DB60542696E61727955736572446566696E656400050000008001020304050D436F6465000E00000066756E6374696F6E2829207B7D000F436F64655769746853636F7065001B0000000E00000066756E6374696F6E2829207B7D00050000000003537562646F63756D656E74001200000002666F6F0004000000626172000004417272617900280000001030000100000010310002000000103200030000001033000400000010340005000000001154696D657374616D7000010000002A0000000B5265676578007061747465726E0000094461746574696D6545706F6368000000000000000000094461746574696D65506F73697469766500FFFFFF7F00000000094461746574696D654E656761746976650000000080FFFFFFFF085472756500010846616C736500000C4442506F696E746572000E00000064622E636F6C6C656374696F6E0057E193D7A9CC81B4027498B1034442526566003D0000000224726566000B000000636F6C6C656374696F6E00072469640057FD71E96E32AB4225B723FB02246462000900000064617461626173650000FF4D696E6B6579007F4D61786B6579000A4E756C6C0006556E646566696E65640000"
        let document = try BSONDocument(bsonBytes: hexBytes(hex))
        #expect(document.count == 25)
        #expect(document["_id"] == .objectId(Self.oid))
        #expect(document["Symbol"] == .symbol("symbol"))
        #expect(document["Int64"] == .int64(42))
        #expect(document["Double"] == -1.0)
        #expect(document["Code"] == .javascript("function() {}"))
        #expect(document["Array"] == [1, 2, 3, 4, 5])
        #expect(document["Timestamp"] == .timestamp(BSONTimestamp(time: 42, increment: 1)))
        #expect(document["DatetimeNegative"] == .datetime(BSONDate(millisecondsSinceEpoch: -2_147_483_648)))
        #expect(
            document["DBPointer"]
                == .dbPointer(BSONDBPointer(namespace: "db.collection", id: ObjectId(hex: "57e193d7a9cc81b4027498b1")!))
        )
        #expect(document["Undefined"] == .undefined)
        #expect(document.keys.last == "Undefined")
        #expect(hexString(try document.bsonBytes) == hex)
    }

    @Test func degenerateArrayKeysAreRenumbered() throws {
        // array.json: index set to "" and to "ab" decode, and encode with canonical keys.
        for degenerate in ["130000000461000B00000010000A0000000000", "150000000461000D000000106162000A0000000000"] {
            let document = try BSONDocument(bsonBytes: hexBytes(degenerate))
            #expect(document["a"] == [10])
            #expect(hexString(try document.bsonBytes) == "140000000461000C0000001030000A0000000000")
        }
    }

    @Test func regexOptionsAreSortedOnDecode() throws {
        let document = try BSONDocument(bsonBytes: hexBytes("100000000B6100616263006D69780000"))
        #expect(hexString(try document.bsonBytes) == "100000000B610061626300696D780000")
    }

    @Test func decodesFromAnyCollectionOfBytes() throws {
        let bytes = hexBytes("0C0000001069000100000000")
        #expect(try BSONDocument(bsonBytes: bytes[...]) == ["i": 1])
        #expect(try BSONDocument(bsonBytes: bytes.lazy.map { $0 }) == ["i": 1])
        #expect(try BSONDocument(bsonBytes: Array([0xFF] + bytes).dropFirst()) == ["i": 1])
    }

    @Test func randomDocumentsRoundTrip() throws {
        for seed in UInt64(1)...300 {
            var random = RandomBSON(seed: seed)
            let document = random.document()
            let bytes = try document.bsonBytes
            let decoded = try BSONDocument(bsonBytes: bytes)
            #expect(decoded == document, "seed \(seed)")
            #expect(try decoded.bsonBytes == bytes, "seed \(seed)")
        }
    }

    @Test func encodingRejectsWhatBSONCannotCarry() {
        #expect(throws: BSONEncodingError(path: "a\0b", "key contains a NUL byte")) {
            try (["a\0b": 1] as BSONDocument).bsonBytes
        }
        let nested: BSONDocument = ["outer": ["list": [1, .regex(BSONRegularExpression(pattern: "x\0"))]]]
        #expect(throws: BSONEncodingError(path: "outer.list.1", "regular expression pattern contains a NUL byte")) {
            try nested.bsonBytes
        }
        var deep: BSON = 1
        for _ in 0...BSONDocument.maximumNestingDepth { deep = ["d": deep] }
        #expect(throws: BSONEncodingError.self) { try deep.documentValue!.bsonBytes }
    }

    @Test func nestingUpToTheLimitRoundTrips() throws {
        // Documents and arrays alternate; with the top-level document that is exactly the limit.
        var value: BSON = [:]
        for level in 2..<BSONDocument.maximumNestingDepth {
            value = level.isMultiple(of: 2) ? [value] : ["d": value]
        }
        let document: BSONDocument = ["top": value]
        let bytes = try document.bsonBytes
        #expect(try BSONDocument(bsonBytes: bytes) == document)
        #expect(throws: BSONEncodingError.self) { try (["deeper": .document(document)] as BSONDocument).bsonBytes }
    }

    @Test func arrayElementsAreKeyedByTheirIndex() throws {
        // Decoding renumbers array keys, so a round trip cannot tell: the bytes are checked instead.
        for count in [0, 1, 10, 11, 100, 101, 1_234] {
            var body: [UInt8] = []
            for index in 0..<count {
                body += [0x10] + Array(String(index).utf8) + [0]
                withUnsafeBytes(of: Int32(index).littleEndian) { body += $0 }
            }
            var array: [UInt8] = []
            withUnsafeBytes(of: Int32(body.count + 5).littleEndian) { array += $0 }
            array += body + [0]
            var expected: [UInt8] = []
            withUnsafeBytes(of: Int32(array.count + 8).littleEndian) { expected += $0 }
            expected += [0x04, 0x61, 0] + array + [0]
            let document: BSONDocument = ["a": .array((0..<count).map { .int32(Int32($0)) })]
            #expect(try document.bsonBytes == expected, "\(count) elements")
        }
    }

    @Test func everyTypeEncodesToItsDocumentedSize() throws {
        // Each value's bytes, with what surrounds it, add up to the length the document declares.
        var random = RandomBSON(seed: 7)
        for _ in 0..<200 {
            let document = random.document()
            let bytes = try document.bsonBytes
            let declared = bytes.withUnsafeBytes { Int(Int32(littleEndian: $0.loadUnaligned(as: Int32.self))) }
            #expect(declared == bytes.count)
            #expect(document.encodedSize == bytes.count)
            #expect(try BSONDocument(bsonBytes: bytes) == document)
        }
    }
}
