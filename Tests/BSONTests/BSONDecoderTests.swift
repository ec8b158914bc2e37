import BSON
import Testing

/// Malformed BSON: the corpus's decodeErrors (top, array, binary, dbpointer, regex, double) and our own.
@Suite struct BSONDecoderTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let hex: String
        let reason: BSONDecodingError.Reason
        /// The offset the error must name, where the case pins one down.
        var offset: Int? = nil
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // top.json
        Case(name: "size too small for the size", hex: "0100000000", reason: .invalidLength, offset: 0),
        Case(name: "size only covers the size", hex: "0400000000", reason: .invalidLength, offset: 0),
        Case(name: "shorter than 5 bytes", hex: "05000000", reason: .truncated, offset: 0),
        Case(name: "EOO is 0x01", hex: "0500000001", reason: .missingTerminator, offset: 4),
        Case(name: "EOO is 0xFF", hex: "05000000FF", reason: .missingTerminator, offset: 4),
        Case(name: "EOO is 0x70", hex: "0500000070", reason: .missingTerminator, offset: 4),
        Case(name: "byte count zero", hex: "00000000000000000000", reason: .invalidLength, offset: 0),
        Case(
            name: "stated length exceeds bytes (truncated)", hex: "1200000002666F6F0004000000626172", reason: .truncated
        ),
        Case(
            name: "garbage after the envelope", hex: "1200000002666F6F00040000006261720000DEADBEEF",
            reason: .trailingBytes, offset: 18),
        Case(name: "stated length exceeds bytes", hex: "1300000002666F6F00040000006261720000", reason: .truncated),
        Case(
            name: "stated length less than bytes", hex: "1100000002666F6F00040000006261720000", reason: .trailingBytes,
            offset: 17),
        Case(name: "type byte zero inside the document", hex: "07000000000000", reason: .invalidLength, offset: 4),
        Case(name: "type byte 0x80", hex: "07000000800000", reason: .unknownType, offset: 4),
        Case(name: "truncated mid-key", hex: "1200000002666F", reason: .truncated),
        // array.json
        Case(
            name: "array length eats outer terminator", hex: "140000000461000D0000001030000A0000000000",
            reason: .truncated, offset: 7),
        Case(
            name: "array length leaks terminator", hex: "140000000461000B0000001030000A0000000000", reason: .truncated,
            offset: 14),
        Case(
            name: "array with bad string length", hex: "1A00000004666F6F00100000000230000500000062617A000000",
            reason: .truncated),
        // binary.json
        Case(
            name: "binary longer than document", hex: "1D000000057800FF0000000573FFD26444B34C6990E8E7D1DFC035D400",
            reason: .truncated, offset: 7),
        Case(name: "binary negative length", hex: "0D000000057800FFFFFFFF0000", reason: .invalidLength, offset: 7),
        Case(
            name: "subtype 2 inner length too long", hex: "13000000057800060000000203000000FFFF00",
            reason: .invalidBinary, offset: 12),
        Case(
            name: "subtype 2 inner length too short", hex: "13000000057800060000000201000000FFFF00",
            reason: .invalidBinary, offset: 12),
        Case(
            name: "subtype 2 inner length -1", hex: "130000000578000600000002FFFFFFFFFFFF00", reason: .invalidBinary,
            offset: 12),
        // dbpointer.json
        Case(
            name: "DBPointer negative string length", hex: "1A0000000C6100FFFFFFFF620056E1FC72E0C917E9C471416100",
            reason: .invalidLength, offset: 7),
        Case(
            name: "DBPointer zero string length", hex: "1A0000000C610000000000620056E1FC72E0C917E9C471416100",
            reason: .invalidLength, offset: 7),
        Case(
            name: "DBPointer string not terminated", hex: "1A0000000C610002000000626256E1FC72E0C917E9C471416100",
            reason: .missingTerminator, offset: 12),
        Case(
            name: "DBPointer short ObjectId", hex: "160000000C61000300000061620056E1FC72E0C91700", reason: .truncated,
            offset: 14),
        Case(
            name: "DBPointer truncated ObjectId", hex: "1A0000000C61000300000061620056E1FC72E0C917E9C4716100",
            reason: .truncated, offset: 14),
        Case(
            name: "DBPointer bad UTF-8", hex: "1A0000000C610002000000E90056E1FC72E0C917E9C471416100",
            reason: .invalidUTF8, offset: 11),
        // regex.json: a NUL inside the pattern or options leaves bytes that are not a valid element
        Case(name: "NUL in regex pattern", hex: "0F0000000B610061006300696D0000", reason: .unknownType),
        Case(name: "NUL in regex options", hex: "100000000B61006162630069006D0000", reason: .unknownType),
        // double.json
        Case(name: "double truncated (corpus)", hex: "0B0000000164000000F03F00", reason: .trailingBytes, offset: 11),
        Case(name: "double truncated", hex: "0C0000000164000000F03F00", reason: .truncated, offset: 7),
        // strings, keys, booleans, types, duplicates
        Case(name: "string length zero", hex: "0D000000026100000000000000", reason: .invalidLength, offset: 7),
        Case(
            name: "string not NUL-terminated", hex: "1000000002610004000000616263FF00", reason: .missingTerminator,
            offset: 14),
        Case(
            name: "string length past the document", hex: "10000000026100640000006162630000", reason: .truncated,
            offset: 7),
        Case(name: "string invalid UTF-8", hex: "0E00000002610002000000E90000", reason: .invalidUTF8, offset: 11),
        Case(name: "string overlong UTF-8", hex: "0F00000002610003000000C0AF0000", reason: .invalidUTF8, offset: 11),
        Case(name: "string UTF-8 surrogate", hex: "1000000002610004000000EDA0800000", reason: .invalidUTF8, offset: 11),
        Case(name: "key invalid UTF-8", hex: "080000000AFF0000", reason: .invalidUTF8, offset: 5),
        Case(name: "key without NUL", hex: "090000000A61626300", reason: .missingTerminator, offset: 5),
        Case(name: "boolean 2", hex: "090000000862000200", reason: .invalidBoolean, offset: 7),
        Case(name: "boolean 0xFF", hex: "09000000086200FF00", reason: .invalidBoolean, offset: 7),
        Case(name: "type byte 0x14", hex: "0800000014610000", reason: .unknownType, offset: 4),
        Case(
            name: "duplicate key", hex: "1700000010666F6F000100000010666F6F000200000000", reason: .duplicateKey,
            offset: 14),
        Case(
            name: "duplicate key in subdocument", hex: "170000000378000F000000106100010000000A61000000",
            reason: .duplicateKey, offset: 19),
        // code with scope
        Case(
            name: "code-with-scope length below 14", hex: "180000000F63000D00000003000000616200050000000000",
            reason: .invalidLength, offset: 7),
        Case(
            name: "code-with-scope length past document", hex: "180000000F6300C800000003000000616200050000000000",
            reason: .truncated, offset: 7),
        Case(
            name: "code-with-scope length longer than parts", hex: "190000000F6300110000000300000061620005000000000000",
            reason: .invalidLength, offset: 7),
        Case(
            name: "code-with-scope length truncates scope", hex: "180000000F63000F00000003000000616200050000000000",
            reason: .truncated, offset: 18),
        Case(
            name: "code-with-scope negative code length", hex: "180000000F630010000000FFFFFFFF616200050000000000",
            reason: .invalidLength, offset: 11),
        Case(
            name: "code-with-scope code length clips scope", hex: "180000000F63001000000009000000616200050000000000",
            reason: .truncated, offset: 11),
        Case(
            name: "code-with-scope bad string in scope",
            hex: "210000000F630019000000030000006162000E0000000261000900000062000000", reason: .truncated, offset: 25),
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
            if let offset = testCase.offset { #expect(error.offset == offset, "\(error)") }
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

    @Test func validPrefixOfEveryCaseStillDecodes() throws {
        // The same bytes with the malformation repaired decode, so the cases above fail for their stated reason.
        #expect(try BSONDocument(bsonBytes: hexBytes("10000000026100040000006162630000")) == ["a": "abc"])
        #expect(try BSONDocument(bsonBytes: hexBytes("090000000862000100")) == ["b": true])
        #expect(
            try BSONDocument(bsonBytes: hexBytes("180000000F63001000000003000000616200050000000000"))
                == ["c": .javascriptWithScope(BSONCodeWithScope(code: "ab", scope: [:]))])
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
