import BSON
import Testing

/// Malformed BSON, each case made by hand from a valid encoding (`source`, canonical bytes from pymongo) by
/// changing, adding or removing the bytes its comment names; `Tests/Compatibility/bson_reference_vectors.py`
/// makes them all. Offsets count from the document's first byte; the comment says why the decoder stops
/// where `offset` says.
@Suite struct BSONDecoderTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// The valid document the malformed bytes were made from.
        let source: String
        let hex: String
        let reason: BSONDecodingError.Reason
        /// The offset the error must name.
        let offset: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // Length 3 at 0.
        Case(
            name: "declared length smaller than the length field", source: "1100000010636F70696573000300000000",
            hex: "0300000010636F70696573000300000000", reason: .invalidLength, offset: 0),
        // Length 4 at 0.
        Case(
            name: "declared length covers only itself", source: "1100000010636F70696573000300000000",
            hex: "0400000010636F70696573000300000000", reason: .invalidLength, offset: 0),
        // Length 0 at 0.
        Case(
            name: "declared length zero", source: "1100000010636F70696573000300000000",
            hex: "0000000010636F70696573000300000000", reason: .invalidLength, offset: 0),
        // 4 bytes in all.
        Case(
            name: "fewer than 5 bytes", source: "1100000010636F70696573000300000000", hex: "11000000",
            reason: .truncated, offset: 0),
        // The document's last byte, 16.
        Case(
            name: "last byte 0x01 instead of NUL", source: "1100000010636F70696573000300000000",
            hex: "1100000010636F70696573000300000001", reason: .missingTerminator, offset: 16),
        // The document's last byte, 16.
        Case(
            name: "last byte 0xFF instead of NUL", source: "1100000010636F70696573000300000000",
            hex: "1100000010636F706965730003000000FF", reason: .missingTerminator, offset: 16),
        // The document's last byte, 16.
        Case(
            name: "last byte 0x10 instead of NUL", source: "1100000010636F70696573000300000000",
            hex: "1100000010636F70696573000300000010", reason: .missingTerminator, offset: 16),
        // Declares 21 bytes, has 12.
        Case(
            name: "input ends inside an element", source: "15000000027469746C65000500000044756E650000",
            hex: "15000000027469746C650005", reason: .truncated, offset: 0),
        // Declares 21 bytes, has 8.
        Case(
            name: "input ends inside a key", source: "15000000027469746C65000500000044756E650000",
            hex: "1500000002746974", reason: .truncated, offset: 0),
        // Declares 22 bytes, has 21.
        Case(
            name: "declared length one more than the input", source: "15000000027469746C65000500000044756E650000",
            hex: "16000000027469746C65000500000044756E650000", reason: .truncated, offset: 0),
        // 4 bytes follow the declared end, 21.
        Case(
            name: "bytes after the document", source: "15000000027469746C65000500000044756E650000",
            hex: "15000000027469746C65000500000044756E650000CAFEF00D", reason: .trailingBytes, offset: 21),
        // The declared end is 20, one byte remains.
        Case(
            name: "declared length one less than the input", source: "15000000027469746C65000500000044756E650000",
            hex: "14000000027469746C65000500000044756E650000", reason: .trailingBytes, offset: 20),
        // An element type 0 at 16, the end is at 18.
        Case(
            name: "type byte zero before the declared end", source: "1100000010636F70696573000300000000",
            hex: "1300000010636F706965730003000000000000", reason: .invalidLength, offset: 16),
        // The element's type byte at 4.
        Case(
            name: "type byte 0x80", source: "1100000010636F70696573000300000000",
            hex: "1100000080636F70696573000300000000", reason: .unknownType, offset: 4),
        // One past Decimal128's 0x13, at 4.
        Case(
            name: "type byte 0x14", source: "1100000010636F70696573000300000000",
            hex: "1100000014636F70696573000300000000", reason: .unknownType, offset: 4),
        // Length 20 at 11 needs bytes up to 31 in a document ending at 30.
        Case(
            name: "array length runs over the outer terminator",
            source: "1F0000000470616765730013000000103000400100001031000C0000000000",
            hex: "1F0000000470616765730014000000103000400100001031000C0000000000", reason: .truncated, offset: 11),
        // Length 18 ends the array at 28, inside the int32 at 25.
        Case(
            name: "array length ends before its last element",
            source: "1F0000000470616765730013000000103000400100001031000C0000000000",
            hex: "1F0000000470616765730012000000103000400100001031000C0000000000", reason: .truncated, offset: 25),
        // The array's last byte, 29.
        Case(
            name: "array without its NUL terminator",
            source: "1F0000000470616765730013000000103000400100001031000C0000000000",
            hex: "1F0000000470616765730013000000103000400100001031000C0000000100", reason: .missingTerminator,
            offset: 29),
        // String length 32 at 17 in an array ending at 27.
        Case(
            name: "array element with a string length past the array",
            source: "1D00000004746167730012000000023000060000007363696669000000",
            hex: "1D00000004746167730012000000023000200000007363696669000000", reason: .truncated, offset: 17),
        // Length 4 at 10.
        Case(
            name: "subdocument length below 5", source: "10000000036D65746100050000000000",
            hex: "10000000036D65746100040000000000", reason: .invalidLength, offset: 10),
        // The subdocument's last byte, 14.
        Case(
            name: "subdocument without its NUL terminator", source: "10000000036D65746100050000000000",
            hex: "10000000036D65746100050000000100", reason: .missingTerminator, offset: 14),
        // Length 255 at 11.
        Case(
            name: "binary length past the document", source: "1500000005636F76657200040000000089504E4700",
            hex: "1500000005636F76657200FF0000000089504E4700", reason: .truncated, offset: 11),
        // Length -1 at 11.
        Case(
            name: "binary length negative", source: "1500000005636F76657200040000000089504E4700",
            hex: "1500000005636F76657200FFFFFFFF0089504E4700", reason: .invalidLength, offset: 11),
        // Inner 4 at 15, outer 7 minus 4 is 3.
        Case(
            name: "old binary inner length one too long", source: "1700000005626C6F620007000000020300000001020300",
            hex: "1700000005626C6F620007000000020400000001020300", reason: .invalidBinary, offset: 15),
        // Inner 2 at 15.
        Case(
            name: "old binary inner length one too short", source: "1700000005626C6F620007000000020300000001020300",
            hex: "1700000005626C6F620007000000020200000001020300", reason: .invalidBinary, offset: 15),
        // Inner -1 at 15.
        Case(
            name: "old binary inner length negative", source: "1700000005626C6F620007000000020300000001020300",
            hex: "1700000005626C6F62000700000002FFFFFFFF01020300", reason: .invalidBinary, offset: 15),
        // Outer length 3 at 10 leaves no room for the inner one.
        Case(
            name: "old binary too short for an inner length", source: "1700000005626C6F620007000000020300000001020300",
            hex: "1300000005626C6F6200030000000201020300", reason: .invalidBinary, offset: 10),
        // Length -1 at 14.
        Case(
            name: "DBPointer namespace length negative",
            source: "2F0000000C7368656C6652656600100000006C6962726172792E7368656C76657300665B0E27D41C9A58E3F6B10400",
            hex: "2F0000000C7368656C6652656600FFFFFFFF6C6962726172792E7368656C76657300665B0E27D41C9A58E3F6B10400",
            reason: .invalidLength, offset: 14),
        // Length 0 at 14 (the NUL counts).
        Case(
            name: "DBPointer namespace length zero",
            source: "2F0000000C7368656C6652656600100000006C6962726172792E7368656C76657300665B0E27D41C9A58E3F6B10400",
            hex: "2F0000000C7368656C6652656600000000006C6962726172792E7368656C76657300665B0E27D41C9A58E3F6B10400",
            reason: .invalidLength, offset: 14),
        // The namespace's last byte, 33.
        Case(
            name: "DBPointer namespace not NUL-terminated",
            source: "2F0000000C7368656C6652656600100000006C6962726172792E7368656C76657300665B0E27D41C9A58E3F6B10400",
            hex: "2F0000000C7368656C6652656600100000006C6962726172792E7368656C76657373665B0E27D41C9A58E3F6B10400",
            reason: .missingTerminator, offset: 33),
        // 8 of the ObjectId's 12 bytes at 34.
        Case(
            name: "DBPointer ObjectId four bytes short",
            source: "2F0000000C7368656C6652656600100000006C6962726172792E7368656C76657300665B0E27D41C9A58E3F6B10400",
            hex: "2B0000000C7368656C6652656600100000006C6962726172792E7368656C76657300665B0E27D41C9A5800",
            reason: .truncated, offset: 34),
        // 11 of the ObjectId's 12 bytes at 34.
        Case(
            name: "DBPointer ObjectId one byte short",
            source: "2F0000000C7368656C6652656600100000006C6962726172792E7368656C76657300665B0E27D41C9A58E3F6B10400",
            hex: "2E0000000C7368656C6652656600100000006C6962726172792E7368656C76657300665B0E27D41C9A58E3F6B100",
            reason: .truncated, offset: 34),
        // 0xFF starts the namespace at 18.
        Case(
            name: "DBPointer namespace invalid UTF-8",
            source: "2F0000000C7368656C6652656600100000006C6962726172792E7368656C76657300665B0E27D41C9A58E3F6B10400",
            hex: "2F0000000C7368656C665265660010000000FF6962726172792E7368656C76657300665B0E27D41C9A58E3F6B10400",
            reason: .invalidUTF8, offset: 18),
        // The pattern ends at 13, the options at 17, and 'i' at 18 reads as a type byte.
        Case(
            name: "NUL inside the regex pattern", source: "160000000B66696C746572005E64756E6500696D0000",
            hex: "160000000B66696C746572005E00756E6500696D0000", reason: .unknownType, offset: 18),
        // Empty options end at 18, and 'm' at 19 reads as a type byte.
        Case(
            name: "NUL before the regex options", source: "160000000B66696C746572005E64756E6500696D0000",
            hex: "160000000B66696C746572005E64756E6500006D0000", reason: .unknownType, offset: 19),
        // 0xFF starts the pattern at 12.
        Case(
            name: "regex pattern invalid UTF-8", source: "160000000B66696C746572005E64756E6500696D0000",
            hex: "160000000B66696C74657200FF64756E6500696D0000", reason: .invalidUTF8, offset: 12),
        // 4 of 8 bytes at 12, length updated.
        Case(
            name: "double cut to four bytes", source: "1500000001726174696E6700000000000000124000",
            hex: "1100000001726174696E67000000124000", reason: .truncated, offset: 12),
        // Declares 21 bytes, has 17.
        Case(
            name: "double cut to four bytes, length not updated", source: "1500000001726174696E6700000000000000124000",
            hex: "1500000001726174696E67000000124000", reason: .truncated, offset: 0),
        // 10 of 12 bytes at 9.
        Case(
            name: "ObjectId cut to ten bytes", source: "16000000075F6964006650A1F4C2B9E83D17A4F0C200",
            hex: "14000000075F6964006650A1F4C2B9E83D17A400", reason: .truncated, offset: 9),
        // The high 8 bytes at 19 have 4.
        Case(
            name: "Decimal128 cut to twelve bytes", source: "1C00000013707269636500E7030000000000000000000000003C3000",
            hex: "1800000013707269636500E7030000000000000000000000", reason: .truncated, offset: 19),
        // Length 0 at 11 (the NUL counts).
        Case(
            name: "string length zero", source: "15000000027469746C65000500000044756E650000",
            hex: "15000000027469746C65000000000044756E650000", reason: .invalidLength, offset: 11),
        // Length -1 at 11.
        Case(
            name: "string length negative", source: "15000000027469746C65000500000044756E650000",
            hex: "15000000027469746C6500FFFFFFFF44756E650000", reason: .invalidLength, offset: 11),
        // The string's last byte, 19.
        Case(
            name: "string not NUL-terminated", source: "15000000027469746C65000500000044756E650000",
            hex: "15000000027469746C65000500000044756E652100", reason: .missingTerminator, offset: 19),
        // Length 100 at 11.
        Case(
            name: "string length past the document", source: "15000000027469746C65000500000044756E650000",
            hex: "15000000027469746C65006400000044756E650000", reason: .truncated, offset: 11),
        // 80 AB at 21; the error names the string's start, 16.
        Case(
            name: "string with a lone continuation byte", source: "1900000002617574686F72000800000042726F6E74C3AB0000",
            hex: "1900000002617574686F72000800000042726F6E7480AB0000", reason: .invalidUTF8, offset: 16),
        // C3 21 at 21.
        Case(
            name: "string with a cut two-byte sequence", source: "1900000002617574686F72000800000042726F6E74C3AB0000",
            hex: "1900000002617574686F72000800000042726F6E74C3210000", reason: .invalidUTF8, offset: 16),
        // C1 AB at 21 would be an overlong 'k'.
        Case(
            name: "string with an overlong encoding", source: "1900000002617574686F72000800000042726F6E74C3AB0000",
            hex: "1900000002617574686F72000800000042726F6E74C1AB0000", reason: .invalidUTF8, offset: 16),
        // ED A0 80 (U+D800) at 15.
        Case(
            name: "string with a UTF-16 surrogate", source: "15000000027368656C660005000000F09F939A0000",
            hex: "15000000027368656C660005000000EDA080210000", reason: .invalidUTF8, offset: 15),
        // F4 90 80 80 at 15.
        Case(
            name: "string with a code point past U+10FFFF", source: "15000000027368656C660005000000F09F939A0000",
            hex: "15000000027368656C660005000000F49080800000", reason: .invalidUTF8, offset: 15),
        // 0xFF starts the key at 5.
        Case(
            name: "key invalid UTF-8", source: "0B0000000A6973626E0000", hex: "0B0000000AFF73626E0000",
            reason: .invalidUTF8, offset: 5),
        // No NUL between the key at 5 and the document's end.
        Case(
            name: "key without NUL", source: "0B0000000A6973626E0000", hex: "0A0000000A6973626E00",
            reason: .missingTerminator, offset: 5),
        // The boolean's byte, 15.
        Case(
            name: "boolean 2", source: "1100000008617661696C61626C65000100", hex: "1100000008617661696C61626C65000200",
            reason: .invalidBoolean, offset: 15),
        // The boolean's byte, 15.
        Case(
            name: "boolean 0xFF", source: "1100000008617661696C61626C65000100",
            hex: "1100000008617661696C61626C6500FF00", reason: .invalidBoolean, offset: 15),
        // The document ends at 15.
        Case(
            name: "boolean without its byte", source: "1100000008617661696C61626C65000100",
            hex: "1000000008617661696C61626C650000", reason: .truncated, offset: 15),
        // The second 'copies' at 17.
        Case(
            name: "duplicate key", source: "1B00000010636F70696573000100000010636F7079000200000000",
            hex: "1D00000010636F70696573000100000010636F70696573000200000000", reason: .duplicateKey, offset: 17),
        // The second 'name' at 34.
        Case(
            name: "duplicate key in a subdocument",
            source: "29000000037075626C69736865720019000000026E616D650004000000416365000A63697479000000",
            hex: "29000000037075626C69736865720019000000026E616D650004000000416365000A6E616D65000000",
            reason: .duplicateKey, offset: 34),
        // Length 13 at 12.
        Case(
            name: "code-with-scope length below 14",
            source: "200000000F7363726970740013000000060000006E202B203100050000000000",
            hex: "200000000F736372697074000D000000060000006E202B203100050000000000", reason: .invalidLength, offset: 12),
        // Length 200 at 12.
        Case(
            name: "code-with-scope length past the document",
            source: "200000000F7363726970740013000000060000006E202B203100050000000000",
            hex: "200000000F73637269707400C8000000060000006E202B203100050000000000", reason: .truncated, offset: 12),
        // Length 20 at 12, code and scope take 19.
        Case(
            name: "code-with-scope length longer than its parts",
            source: "200000000F7363726970740013000000060000006E202B203100050000000000",
            hex: "210000000F7363726970740014000000060000006E202B20310005000000000000", reason: .invalidLength,
            offset: 12),
        // The scope at 26 needs 5 bytes, 4 are left.
        Case(
            name: "code-with-scope length ends inside the scope",
            source: "200000000F7363726970740013000000060000006E202B203100050000000000",
            hex: "200000000F7363726970740012000000060000006E202B203100050000000000", reason: .truncated, offset: 26),
        // Code length -1 at 16.
        Case(
            name: "code-with-scope negative code length",
            source: "200000000F7363726970740013000000060000006E202B203100050000000000",
            hex: "200000000F7363726970740013000000FFFFFFFF6E202B203100050000000000", reason: .invalidLength, offset: 16),
        // Code length 12 at 16, 11 bytes are left.
        Case(
            name: "code-with-scope code length past its end",
            source: "200000000F7363726970740013000000060000006E202B203100050000000000",
            hex: "200000000F73637269707400130000000C0000006E202B203100050000000000", reason: .truncated, offset: 16),
        // Code ends at the scope's NUL, 30; no room for a scope at 31.
        Case(
            name: "code-with-scope code swallows the scope",
            source: "200000000F7363726970740013000000060000006E202B203100050000000000",
            hex: "200000000F73637269707400130000000B0000006E202B203100050000000000", reason: .truncated, offset: 31),
        // String length 9 at 32, the scope ends at 42.
        Case(
            name: "code-with-scope scope with a string past its end",
            source: "2C0000000F736372697074001F000000020000006E001500000002756E697400060000007061676573000000",
            hex: "2C0000000F736372697074001F000000020000006E001500000002756E697400090000007061676573000000",
            reason: .truncated, offset: 32),
    ]

    @Test(arguments: cases)
    func rejectsMalformedBytes(_ testCase: Case) {
        let bytes = hexBytes(testCase.hex)
        do {
            let document = try BSONDocument(bsonBytes: bytes)
            Issue.record("decoded \(document)")
        } catch {
            #expect(error.reason == testCase.reason, "\(error)")
            #expect((0...bytes.count).contains(error.offset))
            #expect(error.offset == testCase.offset, "\(error)")
            #expect(error.description.hasPrefix("invalid BSON at byte \(error.offset): "))
        }
    }

    /// `levels` documents, each the only field ("a") of the one around it.
    static func nested(levels: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(levels * 8 + 5)
        for depth in 0..<(levels - 1) {
            let size = Int32(5 + 8 * (levels - 1 - depth))
            withUnsafeBytes(of: size.littleEndian) { bytes += $0 }
            bytes += [0x03, 0x61, 0x00]
        }
        bytes += [5, 0, 0, 0, 0]
        bytes += repeatElement(0, count: levels - 1)
        return bytes
    }

    @Test func tenThousandLevelsIsAnErrorNotAStackOverflow() {
        let bytes = Self.nested(levels: 10_000)
        #expect(throws: BSONDecodingError(.nestingTooDeep, at: 7 * 1000, "documents nest deeper than 1000 levels")) {
            try BSONDocument(bsonBytes: bytes)
        }
    }

    @Test func nestingIsAllowedUpToTheLimit() throws {
        let limit = BSONDocument.maximumNestingDepth
        var document = try BSONDocument(bsonBytes: Self.nested(levels: limit))
        var depth = 1
        while let inner = document["a"]?.documentValue {
            document = inner
            depth += 1
        }
        #expect(depth == limit)
        #expect(throws: BSONDecodingError.self) { try BSONDocument(bsonBytes: Self.nested(levels: limit + 1)) }
    }

    @Test(arguments: cases)
    func theValidSourceOfEveryCaseDecodes(_ testCase: Case) throws {
        // Each case fails for the malformation it names, not for something already wrong in its source.
        let source = hexBytes(testCase.source)
        #expect(try BSONDocument(bsonBytes: source).bsonBytes == source)
    }

    /// A little of what the libFuzzer target does, so it runs with every test run: corrupted encodings of
    /// random documents either fail with an error inside the input or decode to a document that round-trips.
    @Test func corruptedBytesFailCleanlyOrRoundTrip() throws {
        var generator = SeededGenerator(seed: 99)
        var decodedCount = 0
        for seed in UInt64(1)...150 {
            var random = RandomBSON(seed: seed)
            let original = try random.document().bsonBytes
            for _ in 0..<30 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let position = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                    case 1: bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
                    case 2: bytes.removeSubrange(position...)
                    default: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
                    }
                    if bytes.isEmpty { break }
                }
                do {
                    let document = try BSONDocument(bsonBytes: bytes)
                    decodedCount += 1
                    let encoded = try document.bsonBytes
                    #expect(try BSONDocument(bsonBytes: encoded) == document)
                } catch let error as BSONDecodingError {
                    #expect((0...bytes.count).contains(error.offset))
                }
            }
        }
        // Some corruptions (inside string or binary contents) still decode; the test must exercise both paths.
        #expect(decodedCount > 100)
    }

    /// A document of int32 fields with these keys, in order.
    static func int32Fields(_ keys: [String]) -> [UInt8] {
        var body: [UInt8] = []
        for (value, key) in keys.enumerated() {
            body += [0x10] + Array(key.utf8) + [0]
            withUnsafeBytes(of: Int32(value).littleEndian) { body += $0 }
        }
        var bytes: [UInt8] = []
        withUnsafeBytes(of: Int32(body.count + 5).littleEndian) { bytes += $0 }
        return bytes + body + [0]
    }

    /// Offset of the `index`th key of an `int32Fields` document.
    static func keyOffset(_ keys: [String], _ index: Int) -> Int {
        4 + keys[..<index].reduce(0) { $0 + 1 + $1.utf8.count + 1 + 4 } + 1
    }

    @Test func keysAreComparedByAllTheirBytes() throws {
        // Long keys agreeing in their first bytes, and keys whose lengths differ by exactly 256, are distinct.
        let long = String(repeating: "k", count: 40)
        let distinct = [
            long + "a", long + "b", "abcdefg", "abcdefgh", "abcdefgi", String(repeating: "x", count: 300),
            String(repeating: "x", count: 44), String(repeating: "x", count: 7), String(repeating: "x", count: 263),
            "é", "e\u{301}",
        ]
        let document = try BSONDocument(bsonBytes: Self.int32Fields(distinct))
        #expect(document.keys == distinct)

        for keys in [[long + "a", "b", long + "a"], ["abcdefg", "x", "abcdefg"], ["a", "b", "", "c", ""]] {
            let last = keys.count - 1
            #expect(
                throws: BSONDecodingError(
                    .duplicateKey, at: Self.keyOffset(keys, last), "duplicate key '\(keys[last])'")
            ) { try BSONDocument(bsonBytes: Self.int32Fields(keys)) }
        }
    }

    @Test func duplicateKeysAreFoundInLargeDocumentsToo() throws {
        // Past 16 fields a document has a hash index, which takes over the duplicate check.
        for count in [15, 16, 17, 40] {
            var keys = (0..<count).map { "field\($0)" }
            #expect(try BSONDocument(bsonBytes: Self.int32Fields(keys)).count == count)
            for duplicate in [0, count / 2, count - 1] {
                keys.append(keys[duplicate])
                #expect(
                    throws: BSONDecodingError(
                        .duplicateKey, at: Self.keyOffset(keys, count), "duplicate key '\(keys[count])'")
                ) { try BSONDocument(bsonBytes: Self.int32Fields(keys)) }
                keys.removeLast()
            }
        }
    }

    @Test func aKeyMayRepeatInAnotherDocument() throws {
        // Each document checks its own keys: a parent may reuse its child's keys, and siblings each other's.
        let document: BSONDocument = [
            "a": ["a": 1, "b": ["a": 2, "b": 3]], "b": ["a": 4], "c": [["a": 5], ["a": 6]], "d": 7,
        ]
        #expect(try BSONDocument(bsonBytes: try document.bsonBytes) == document)
    }

    @Test func decodingFromRawMemoryMatchesDecodingAnArray() throws {
        // Valid documents decode alike; malformed ones fail with the same error.
        for seed in UInt64(1)...50 {
            var random = RandomBSON(seed: seed)
            let bytes = try random.document().bsonBytes
            #expect(try bytes.withUnsafeBytes { try BSONDocument(bsonBytes: $0) } == BSONDocument(bsonBytes: bytes))
        }
        for testCase in Self.cases {
            let bytes = hexBytes(testCase.hex)
            var fromArray: BSONDecodingError?
            var fromMemory: BSONDecodingError?
            do { _ = try BSONDocument(bsonBytes: bytes) } catch { fromArray = error }
            bytes.withUnsafeBytes { raw in
                do throws(BSONDecodingError) { _ = try BSONDocument(bsonBytes: raw) } catch { fromMemory = error }
            }
            #expect(fromArray != nil && fromMemory == fromArray, "\(testCase.name)")
        }
        #expect(throws: BSONDecodingError(.truncated, at: 0, "a document needs at least 5 bytes, got 0")) {
            try BSONDocument(bsonBytes: UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }
}
