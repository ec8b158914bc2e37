import BSON
import Testing

/// Canonical BSON, one case per type and per edge of a type. The expected bytes come from pymongo's `bson`
/// module, an implementation independent of ours (`Tests/Compatibility/bson_reference_vectors.py` prints them); pymongo
/// cannot write undefined, symbol and DBPointer, whose bytes the script assembles from the types that
/// share their layout.
@Suite struct BSONDocumentBytesTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let hex: String
        let value: BSON
        var testDescription: String { name }
    }

    static let bookID = ObjectId(hex: "6650a1f4c2b9e83d17a4f0c2")!
    static let shelfID = ObjectId(hex: "665b0e27d41c9a58e3f6b104")!

    static let vectors: [Vector] = [
        Vector(name: "double", hex: "1500000001726174696E6700000000000000124000", value: ["rating": 4.5]),
        Vector(
            name: "double negative zero", hex: "140000000164656C746100000000000000008000",
            value: ["delta": .double(-0.0)]),
        Vector(
            name: "double negative infinity", hex: "1400000001666C6F6F7200000000000000F0FF00",
            value: ["floor": .double(-.infinity)]),
        Vector(
            name: "double positive infinity", hex: "16000000016365696C696E6700000000000000F07F00",
            value: ["ceiling": .double(.infinity)]),
        Vector(
            name: "string with an embedded NUL", hex: "15000000026E6F74650006000000746F00646F0000",
            value: ["note": "to\0do"]),
        Vector(name: "empty string", hex: "14000000027375627469746C6500010000000000", value: ["subtitle": ""]),
        Vector(
            name: "two-byte UTF-8", hex: "1900000002617574686F72000800000042726F6E74C3AB0000",
            value: ["author": "Brontë"]),
        Vector(name: "four-byte UTF-8", hex: "15000000027368656C660005000000F09F939A0000", value: ["shelf": "📚"]),
        Vector(
            name: "subdocument with an empty key",
            hex: "1F000000036D6574610014000000020009000000756E7469746C6564000000", value: ["meta": ["": "untitled"]]),
        Vector(name: "empty subdocument", hex: "10000000036D65746100050000000000", value: ["meta": [:]]),
        Vector(name: "empty array", hex: "10000000047461677300050000000000", value: ["tags": []]),
        Vector(
            name: "array", hex: "1F0000000470616765730013000000103000400100001031000C0000000000",
            value: ["pages": [320, 12]]),
        Vector(
            name: "binary generic", hex: "1500000005636F76657200040000000089504E4700",
            value: ["cover": .binary(BSONBinary(data: [0x89, 0x50, 0x4E, 0x47]))]),
        Vector(
            name: "binary old subtype 2", hex: "1700000005626C6F620007000000020300000001020300",
            value: ["blob": .binary(BSONBinary(subtype: 2, data: [1, 2, 3]))]),
        Vector(
            name: "binary UUID", hex: "22000000056465766963650010000000043F2A6C1E9B4D4E7A8C152D6E9F0A7B3C00",
            value: ["device": .binary(BSONBinary(subtype: 4, data: hexBytes("3F2A6C1E9B4D4E7A8C152D6E9F0A7B3C")))]),
        Vector(
            name: "binary user subtype", hex: "17000000057369676E6174757265000200000080CAFE00",
            value: ["signature": .binary(BSONBinary(subtype: 0x80, data: [0xCA, 0xFE]))]),
        Vector(name: "undefined", hex: "0D000000066C65676163790000", value: ["legacy": .undefined]),
        Vector(
            name: "ObjectId", hex: "16000000075F6964006650A1F4C2B9E83D17A4F0C200", value: ["_id": .objectId(bookID)]),
        Vector(name: "true", hex: "1100000008617661696C61626C65000100", value: ["available": true]),
        Vector(name: "false", hex: "1100000008617661696C61626C65000000", value: ["available": false]),
        Vector(
            name: "datetime before 1970", hex: "18000000097075626C69736865640035FB048EE0FEFFFF00",
            value: ["published": .datetime(BSONDate(millisecondsSinceEpoch: -1_234_567_890_123))]),
        Vector(
            name: "datetime", hex: "140000000961646465640000D22CC58F01000000",
            value: ["added": .datetime(BSONDate(millisecondsSinceEpoch: 1_717_000_000_000))]),
        Vector(name: "null", hex: "0B0000000A6973626E0000", value: ["isbn": .null]),
        Vector(
            name: "regex", hex: "160000000B66696C746572005E64756E6500696D0000",
            value: ["filter": .regex(BSONRegularExpression(pattern: "^dune", options: "im"))]),
        Vector(
            name: "DBPointer",
            hex: "2F0000000C7368656C6652656600100000006C6962726172792E7368656C76657300665B0E27D41C9A58E3F6B10400",
            value: ["shelfRef": .dbPointer(BSONDBPointer(namespace: "library.shelves", id: shelfID))]),
        Vector(
            name: "code", hex: "1A0000000D736372697074000900000072657475726E20310000",
            value: ["script": .javascript("return 1")]),
        Vector(name: "symbol", hex: "160000000E67656E7265000600000073636966690000", value: ["genre": .symbol("scifi")]),
        Vector(name: "empty symbol", hex: "110000000E67656E726500010000000000", value: ["genre": .symbol("")]),
        Vector(
            name: "code with scope", hex: "200000000F7363726970740013000000060000006E202B203100050000000000",
            value: ["script": .javascriptWithScope(BSONCodeWithScope(code: "n + 1", scope: [:]))]),
        Vector(
            name: "code with a non-empty scope",
            hex: "2D0000000F7363726970740020000000090000006E202B2073746570000F000000107374657000020000000000",
            value: ["script": .javascriptWithScope(BSONCodeWithScope(code: "n + step", scope: ["step": 2]))]),
        Vector(name: "int32", hex: "1100000010636F70696573000300000000", value: ["copies": 3]),
        Vector(name: "int32 min", hex: "1000000010636F756E74000000008000", value: ["count": .int32(.min)]),
        Vector(
            name: "timestamp", hex: "11000000117473000700000000F1536500",
            value: ["ts": .timestamp(BSONTimestamp(time: 1_700_000_000, increment: 7))]),
        Vector(name: "int64 max", hex: "1400000012766965777300FFFFFFFFFFFFFF7F00", value: ["views": .int64(.max)]),
        Vector(name: "int64 min", hex: "1400000012766965777300000000000000008000", value: ["views": .int64(.min)]),
        Vector(
            name: "decimal 9.99", hex: "1C00000013707269636500E7030000000000000000000000003C3000",
            value: ["price": .decimal128(Decimal128("9.99")!)]),
        Vector(
            name: "decimal -0.00", hex: "1C0000001370726963650000000000000000000000000000003CB000",
            value: ["price": .decimal128(Decimal128("-0.00")!)]),
        Vector(name: "minKey", hex: "0A000000FF6C6F770000", value: ["low": .minKey]),
        Vector(name: "maxKey", hex: "0B0000007F686967680000", value: ["high": .maxKey]),
        Vector(name: "key starting with $", hex: "1100000010247072696365002A00000000", value: ["$price": 42]),
    ]

    @Test(arguments: vectors)
    func decodesAndEncodesCanonicalBSON(_ vector: Vector) throws {
        let bytes = hexBytes(vector.hex)
        let document = try BSONDocument(bsonBytes: bytes)
        #expect(BSON.document(document) == vector.value)
        #expect(hexString(try document.bsonBytes) == vector.hex.uppercased())
        #expect(hexString(try vector.value.documentValue!.bsonBytes) == vector.hex.uppercased())
        #expect(document.encodedSize == bytes.count)
    }

    @Test func documentOfEveryTypeRoundTrips() throws {
        // A book with a field of each BSON type, deprecated ones included, and a DBRef-shaped subdocument.
        let hex =
            "5E020000075F6964006650A1F4C2B9E83D17A4F0C2027469746C65001A000000546865204C6566742048616E64206F66204461726B6E657373000E67656E72650006000000736369666900107061676573003001000012766965777300CB04FB711F01000001726174696E670000000000000002C013707269636500E2040000000000000000000000003C3005636F76657200060000000089504E470D0A056465766963650010000000043F2A6C1E9B4D4E7A8C152D6E9F0A7B3C057369676E6174757265000400000080CAFEBABE0D73756D6D617279000D00000072657475726E207469746C65000F73636F7265002900000010000000726174696E67202A20776569676874001100000010776569676874000200000000037075626C69736865720026000000026E616D65000400000041636500026369747900090000004E657720596F726B00000465646974696F6E73001A000000103000B1070000103100B8070000103200E30700000011696E6465786564000300000000F153650B736561726368005E6C656674006978000961646465640000000000000000000972657072696E7465640000D22CC58F010000097772697474656E0000A4D9FAFFFFFFFF08617661696C61626C650001087369676E656400000C7368656C6652656600100000006C6962726172792E7368656C76657300665B0E27D41C9A58E3F6B104037368656C660039000000022472656600080000007368656C766573000724696400665B0E27D41C9A58E3F6B1040224646200080000006C6962726172790000FF6669727374007F6C617374000A6973626E00066C65676163790000"
        let document = try BSONDocument(bsonBytes: hexBytes(hex))
        let expected: BSONDocument = [
            "_id": .objectId(Self.bookID), "title": "The Left Hand of Darkness", "genre": .symbol("scifi"),
            "pages": 304, "views": .int64(1_234_567_890_123), "rating": -2.25,
            "price": .decimal128(Decimal128("12.50")!),
            "cover": .binary(BSONBinary(data: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A])),
            "device": .binary(BSONBinary(subtype: 4, data: hexBytes("3F2A6C1E9B4D4E7A8C152D6E9F0A7B3C"))),
            "signature": .binary(BSONBinary(subtype: 0x80, data: [0xCA, 0xFE, 0xBA, 0xBE])),
            "summary": .javascript("return title"),
            "score": .javascriptWithScope(BSONCodeWithScope(code: "rating * weight", scope: ["weight": 2])),
            "publisher": ["name": "Ace", "city": "New York"], "editions": [1969, 1976, 2019],
            "indexed": .timestamp(BSONTimestamp(time: 1_700_000_000, increment: 3)),
            "search": .regex(BSONRegularExpression(pattern: "^left", options: "ix")),
            "added": .datetime(BSONDate(millisecondsSinceEpoch: 0)),
            "reprinted": .datetime(BSONDate(millisecondsSinceEpoch: 1_717_000_000_000)),
            "written": .datetime(BSONDate(millisecondsSinceEpoch: -86_400_000)),
            "available": true, "signed": false,
            "shelfRef": .dbPointer(BSONDBPointer(namespace: "library.shelves", id: Self.shelfID)),
            "shelf": ["$ref": "shelves", "$id": .objectId(Self.shelfID), "$db": "library"],
            "first": .minKey, "last": .maxKey, "isbn": .null, "legacy": .undefined,
        ]
        #expect(document == expected)
        #expect(document.keys == expected.keys)
        #expect(hexString(try document.bsonBytes) == hex)
        #expect(hexString(try expected.bsonBytes) == hex)
    }

    @Test func arrayKeysAreRenumbered() throws {
        // Array keys should be "0", "1", …; empty, named, out-of-order and repeated keys decode all the same,
        // and encode with the canonical keys. Each is the canonical encoding with its keys rewritten.
        let canonical = "1F0000000470616765730013000000103000400100001031000C0000000000"
        for degenerate in [
            "1D000000047061676573001100000010004001000010000C0000000000",
            "28000000047061676573001C0000001066697273740040010000107365636F6E64000C0000000000",
            "1F0000000470616765730013000000103100400100001030000C0000000000",
            "1F0000000470616765730013000000103700400100001037000C0000000000",
        ] {
            let document = try BSONDocument(bsonBytes: hexBytes(degenerate))
            #expect(document["pages"] == [320, 12])
            #expect(hexString(try document.bsonBytes) == canonical)
        }
    }

    @Test func regexOptionsAreSortedOnDecode() throws {
        // Options "xsi" as written; canonical BSON (and pymongo) has them in alphabetical order.
        let document = try BSONDocument(bsonBytes: hexBytes("170000000B66696C746572005E64756E65007873690000"))
        #expect(document["filter"] == .regex(BSONRegularExpression(pattern: "^dune", options: "isx")))
        #expect(hexString(try document.bsonBytes) == "170000000B66696C746572005E64756E65006973780000")
    }

    @Test func decodesFromAnyCollectionOfBytes() throws {
        let bytes = hexBytes("1100000010636F70696573000300000000")
        #expect(try BSONDocument(bsonBytes: bytes[...]) == ["copies": 3])
        #expect(try BSONDocument(bsonBytes: bytes.lazy.map { $0 }) == ["copies": 3])
        #expect(try BSONDocument(bsonBytes: Array([0xFF] + bytes).dropFirst()) == ["copies": 3])
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
