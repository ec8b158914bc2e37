import BSON
import Testing

@Suite struct ExtendedJSONWriterTests {
    let oid = ObjectId(hex: "6650a1f4c2b9e83d17a4f0c2")!

    /// Canonical and relaxed output of `{"a": value}`.
    func both(_ value: BSON) -> (canonical: String, relaxed: String) {
        let document: BSONDocument = ["a": value]
        return (document.extendedJSON(mode: .canonical), document.extendedJSON(mode: .relaxed))
    }

    @Test func numbersKeepTheirTypesInCanonicalMode() {
        #expect(both(.int32(42)) == (#"{"a":{"$numberInt":"42"}}"#, #"{"a":42}"#))
        #expect(both(.int64(42)) == (#"{"a":{"$numberLong":"42"}}"#, #"{"a":42}"#))
        #expect(both(.double(42)) == (#"{"a":{"$numberDouble":"42.0"}}"#, #"{"a":42.0}"#))
        #expect(both(.int32(.min)) == (#"{"a":{"$numberInt":"-2147483648"}}"#, #"{"a":-2147483648}"#))
        #expect(both(.int64(.max)).canonical == #"{"a":{"$numberLong":"9223372036854775807"}}"#)
        #expect(both(.int64(.min)).relaxed == #"{"a":-9223372036854775808}"#)
    }

    @Test(arguments: [
        (1.0, "1.0"), (-1.0, "-1.0"), (0.0, "0.0"), (-0.0, "-0.0"), (1.0001220703125, "1.0001220703125"),
        (9.8765432101234e17, "9.8765432101234E+17"), (-9.8765432101234e17, "-9.8765432101234E+17"),
        (1e308, "1.0E+308"), (Double.leastNonzeroMagnitude, "5.0E-324"), (1e-5, "1.0E-5"), (0.0001, "0.0001"),
        (0.1, "0.1"),
        (1e15, "1000000000000000.0"), (1e16, "1.0E+16"), (Double.greatestFiniteMagnitude, "1.7976931348623157E+308"),
        (2.0001220703125e10, "20001220703.125"),
    ])
    func doublesPrintShortestRoundTrippingText(value: Double, text: String) {
        #expect(both(.double(value)) == (#"{"a":{"$numberDouble":"\#(text)"}}"#, #"{"a":\#(text)}"#))
    }

    @Test func nonFiniteDoublesStayWrappedInRelaxedMode() {
        #expect(both(.double(.infinity)).relaxed == #"{"a":{"$numberDouble":"Infinity"}}"#)
        #expect(both(.double(-.infinity)).relaxed == #"{"a":{"$numberDouble":"-Infinity"}}"#)
        #expect(both(.double(.nan)).canonical == #"{"a":{"$numberDouble":"NaN"}}"#)
        #expect(both(.double(.nan)).relaxed == #"{"a":{"$numberDouble":"NaN"}}"#)
    }

    @Test func datesAreTextOnlyFrom1970To9999InRelaxedMode() {
        func date(_ ms: Int64) -> (String, String) { both(.datetime(BSONDate(millisecondsSinceEpoch: ms))) }
        #expect(date(0) == (#"{"a":{"$date":{"$numberLong":"0"}}}"#, #"{"a":{"$date":"1970-01-01T00:00:00Z"}}"#))
        #expect(date(1_710_495_667_250).1 == #"{"a":{"$date":"2024-03-15T09:41:07.250Z"}}"#)
        #expect(date(1_717_000_000_321).1 == #"{"a":{"$date":"2024-05-29T16:26:40.321Z"}}"#)
        #expect(date(253_402_300_799_999).1 == #"{"a":{"$date":"9999-12-31T23:59:59.999Z"}}"#)
        #expect(date(253_402_300_800_000).1 == #"{"a":{"$date":{"$numberLong":"253402300800000"}}}"#)
        #expect(date(-1).1 == #"{"a":{"$date":{"$numberLong":"-1"}}}"#)
        #expect(date(-1_234_567_890_123).1 == #"{"a":{"$date":{"$numberLong":"-1234567890123"}}}"#)
    }

    @Test func everyOtherTypeHasOneFormInBothModes() {
        let cases: [(BSON, String)] = [
            (.objectId(oid), #"{"$oid":"6650a1f4c2b9e83d17a4f0c2"}"#),
            (.string("s"), #""s""#),
            (.bool(true), "true"), (.bool(false), "false"), (.null, "null"),
            (
                .binary(
                    BSONBinary(
                        subtype: 4,
                        data: [
                            0x3F, 0x2A, 0x6C, 0x1E, 0x9B, 0x4D, 0x4E, 0x7A,
                            0x8C, 0x15, 0x2D, 0x6E, 0x9F, 0x0A, 0x7B, 0x3C,
                        ])),
                #"{"$binary":{"base64":"PypsHptNTnqMFS1unwp7PA==","subType":"04"}}"#
            ),
            (
                .binary(BSONBinary(subtype: 0x80, data: Array("123".utf8))),
                #"{"$binary":{"base64":"MTIz","subType":"80"}}"#
            ),
            (.binary(BSONBinary(subtype: 0, data: [])), #"{"$binary":{"base64":"","subType":"00"}}"#),
            (.binary(BSONBinary(subtype: 0, data: [0xCA, 0xFE])), #"{"$binary":{"base64":"yv4=","subType":"00"}}"#),
            (.javascript("() => title"), #"{"$code":"() => title"}"#),
            (
                .javascriptWithScope(BSONCodeWithScope(code: "f", scope: ["x": 1])),
                #"{"$code":"f","$scope":{"x":{"$numberInt":"1"}}}"#
            ),
            (.timestamp(BSONTimestamp(time: 42, increment: 1)), #"{"$timestamp":{"t":42,"i":1}}"#),
            (
                .timestamp(BSONTimestamp(time: .max, increment: .max)),
                #"{"$timestamp":{"t":4294967295,"i":4294967295}}"#
            ),
            (
                .regex(BSONRegularExpression(pattern: "dune*", options: "xi")),
                #"{"$regularExpression":{"pattern":"dune*","options":"ix"}}"#
            ),
            (
                .dbPointer(BSONDBPointer(namespace: "db.c", id: oid)),
                #"{"$dbPointer":{"$ref":"db.c","$id":{"$oid":"6650a1f4c2b9e83d17a4f0c2"}}}"#
            ),
            (.symbol("sym"), #"{"$symbol":"sym"}"#),
            (.minKey, #"{"$minKey":1}"#), (.maxKey, #"{"$maxKey":1}"#), (.undefined, #"{"$undefined":true}"#),
            (.decimal128(Decimal128("12.50")!), #"{"$numberDecimal":"12.50"}"#),
            (.array([]), "[]"), (.document([:]), "{}"),
        ]
        for (value, text) in cases {
            #expect(value.extendedJSON(mode: .canonical) == text)
            if case .javascriptWithScope = value { continue }
            #expect(value.extendedJSON(mode: .relaxed) == text)
        }
    }

    @Test func codeWithScopePrintsItsScopeInTheChosenMode() {
        let value = BSON.javascriptWithScope(BSONCodeWithScope(code: "f", scope: ["x": 1]))
        #expect(value.extendedJSON(mode: .relaxed) == #"{"$code":"f","$scope":{"x":1}}"#)
    }

    @Test func stringsAreEscapedAsJSONRequires() {
        let value = BSON.string("q\"b\\s/\u{8}\u{C}\n\r\t\u{0}\u{1F}\u{7F}é😀")
        #expect(value.extendedJSON() == #""q\"b\\s/\b\f\n\r\t\u0000\u001f"# + "\u{7F}é😀\"")
        let document: BSONDocument = ["k\"ey\n": "v"]
        #expect(document.extendedJSON() == #"{"k\"ey\n":"v"}"#)
    }

    @Test func keysKeepDocumentOrderAndNestingIsCompact() {
        let document: BSONDocument = ["z": 1, "a": ["b": [1, "x", ["c": .null]]], "m": .bool(true)]
        #expect(
            document.extendedJSON(mode: .canonical)
                == #"{"z":{"$numberInt":"1"},"a":{"b":[{"$numberInt":"1"},"x",{"c":null}]},"m":true}"#)
        #expect(document.extendedJSON(mode: .relaxed) == #"{"z":1,"a":{"b":[1,"x",{"c":null}]},"m":true}"#)
    }

    @Test func aBookOfTheCommonTypesPrintsAsPymongoPrintsIt() {
        // Expected text from pymongo's `bson.json_util` (canonical and relaxed options, compact separators).
        let document: BSONDocument = [
            "_id": .objectId(oid), "title": "Kindred", "pages": .int32(287), "views": .int64(287),
            "rating": .double(4.75), "price": .decimal128(Decimal128("2468.5")!),
            "summary": .javascript("return title"),
            "publisher": ["name": "Doubleday"], "editions": [1979, 1988, 2003],
            "indexed": .timestamp(BSONTimestamp(time: 287, increment: 3)),
            "added": .datetime(BSONDate(millisecondsSinceEpoch: 0)),
            "lastCopy": .datetime(BSONDate(millisecondsSinceEpoch: 253_402_300_799_999)),
            "firstCopy": .datetime(BSONDate(millisecondsSinceEpoch: -62_135_596_800_000)),
            "low": .minKey, "high": .maxKey, "isbn": .null,
        ]
        let canonical =
            #"{"_id":{"$oid":"6650a1f4c2b9e83d17a4f0c2"},"title":"Kindred","pages":{"$numberInt":"287"},"#
            + #""views":{"$numberLong":"287"},"rating":{"$numberDouble":"4.75"},"#
            + #""price":{"$numberDecimal":"2468.5"},"summary":{"$code":"return title"},"#
            + #""publisher":{"name":"Doubleday"},"#
            + #""editions":[{"$numberInt":"1979"},{"$numberInt":"1988"},{"$numberInt":"2003"}],"#
            + #""indexed":{"$timestamp":{"t":287,"i":3}},"added":{"$date":{"$numberLong":"0"}},"#
            + #""lastCopy":{"$date":{"$numberLong":"253402300799999"}},"#
            + #""firstCopy":{"$date":{"$numberLong":"-62135596800000"}},"#
            + #""low":{"$minKey":1},"high":{"$maxKey":1},"isbn":null}"#
        let relaxed =
            #"{"_id":{"$oid":"6650a1f4c2b9e83d17a4f0c2"},"title":"Kindred","pages":287,"views":287,"rating":4.75,"#
            + #""price":{"$numberDecimal":"2468.5"},"summary":{"$code":"return title"},"#
            + #""publisher":{"name":"Doubleday"},"editions":[1979,1988,2003],"#
            + #""indexed":{"$timestamp":{"t":287,"i":3}},"added":{"$date":"1970-01-01T00:00:00Z"},"#
            + #""lastCopy":{"$date":"9999-12-31T23:59:59.999Z"},"#
            + #""firstCopy":{"$date":{"$numberLong":"-62135596800000"}},"#
            + #""low":{"$minKey":1},"high":{"$maxKey":1},"isbn":null}"#
        #expect(document.extendedJSON(mode: .canonical) == canonical)
        #expect(document.extendedJSON(mode: .relaxed) == relaxed)
    }

    @Test func documentsAppendToAnExistingBuffer() {
        var buffer = Array("[".utf8)
        BSONDocument(dictionaryLiteral: ("a", 1)).appendExtendedJSON(to: &buffer, mode: .relaxed)
        buffer.append(UInt8(ascii: "]"))
        #expect(String(decoding: buffer, as: UTF8.self) == #"[{"a":1}]"#)
    }
}
