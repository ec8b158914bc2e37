import BSON
import Testing

@Suite struct ExtendedJSONWriterTests {
    let oid = ObjectId(hex: "57e193d7a9cc81b4027498b5")!

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
        (1.2345678921232e18, "1.2345678921232E+18"), (-1.2345678921232e18, "-1.2345678921232E+18"),
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
        #expect(date(1_654_708_829_678).1 == #"{"a":{"$date":"2022-06-08T17:20:29.678Z"}}"#)
        #expect(date(1_356_351_330_501).1 == #"{"a":{"$date":"2012-12-24T12:15:30.501Z"}}"#)
        #expect(date(253_402_300_799_999).1 == #"{"a":{"$date":"9999-12-31T23:59:59.999Z"}}"#)
        #expect(date(253_402_300_800_000).1 == #"{"a":{"$date":{"$numberLong":"253402300800000"}}}"#)
        #expect(date(-1).1 == #"{"a":{"$date":{"$numberLong":"-1"}}}"#)
        #expect(date(-284_643_869_501).1 == #"{"a":{"$date":{"$numberLong":"-284643869501"}}}"#)
    }

    @Test func everyOtherTypeHasOneFormInBothModes() {
        let cases: [(BSON, String)] = [
            (.objectId(oid), #"{"$oid":"57e193d7a9cc81b4027498b5"}"#),
            (.string("s"), #""s""#),
            (.bool(true), "true"), (.bool(false), "false"), (.null, "null"),
            (
                .binary(
                    BSONBinary(
                        subtype: 4,
                        data: [
                            0xC8, 0xED, 0xAB, 0xC3, 0xF7, 0x38, 0x4C, 0xA3,
                            0xB6, 0x8D, 0xAB, 0x92, 0xA9, 0x14, 0x78, 0xA3,
                        ])),
                #"{"$binary":{"base64":"yO2rw/c4TKO2jauSqRR4ow==","subType":"04"}}"#
            ),
            (
                .binary(BSONBinary(subtype: 0x80, data: Array("123".utf8))),
                #"{"$binary":{"base64":"MTIz","subType":"80"}}"#
            ),
            (.binary(BSONBinary(subtype: 0, data: [])), #"{"$binary":{"base64":"","subType":"00"}}"#),
            (.binary(BSONBinary(subtype: 0, data: [0xFF, 0xFF])), #"{"$binary":{"base64":"//8=","subType":"00"}}"#),
            (.javascript("function() {}"), #"{"$code":"function() {}"}"#),
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
                .regex(BSONRegularExpression(pattern: "foo*", options: "xi")),
                #"{"$regularExpression":{"pattern":"foo*","options":"ix"}}"#
            ),
            (
                .dbPointer(BSONDBPointer(namespace: "db.c", id: oid)),
                #"{"$dbPointer":{"$ref":"db.c","$id":{"$oid":"57e193d7a9cc81b4027498b5"}}}"#
            ),
            (.symbol("sym"), #"{"$symbol":"sym"}"#),
            (.minKey, #"{"$minKey":1}"#), (.maxKey, #"{"$maxKey":1}"#), (.undefined, #"{"$undefined":true}"#),
            (.decimal128(Decimal128("1234.5")!), #"{"$numberDecimal":"1234.5"}"#),
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

    @Test func theSpecificationsExampleDocumentPrintsAsPublished() {
        let document: BSONDocument = [
            "_id": .objectId(oid), "String": "string", "Int32": .int32(42), "Int64": .int64(42),
            "Double": .double(42.42), "Decimal": .decimal128(Decimal128("1234.5")!),
            "Code": .javascript("function() {}"), "Subdocument": ["foo": "bar"], "Array": [1, 2, 3, 4, 5],
            "Timestamp": .timestamp(BSONTimestamp(time: 42, increment: 1)),
            "DatetimeEpoch": .datetime(BSONDate(millisecondsSinceEpoch: 0)),
            "DatetimePositive": .datetime(BSONDate(millisecondsSinceEpoch: 253_402_300_799_999)),
            "DatetimeNegative": .datetime(BSONDate(millisecondsSinceEpoch: -62_135_596_800_000)),
            "Minkey": .minKey, "Maxkey": .maxKey, "Null": .null,
        ]
        let canonical =
            #"{"_id":{"$oid":"57e193d7a9cc81b4027498b5"},"String":"string","Int32":{"$numberInt":"42"},"#
            + #""Int64":{"$numberLong":"42"},"Double":{"$numberDouble":"42.42"},"#
            + #""Decimal":{"$numberDecimal":"1234.5"},"Code":{"$code":"function() {}"},"Subdocument":{"foo":"bar"},"#
            + #""Array":[{"$numberInt":"1"},{"$numberInt":"2"},{"$numberInt":"3"},{"$numberInt":"4"},"#
            + #"{"$numberInt":"5"}],"Timestamp":{"$timestamp":{"t":42,"i":1}},"#
            + #""DatetimeEpoch":{"$date":{"$numberLong":"0"}},"#
            + #""DatetimePositive":{"$date":{"$numberLong":"253402300799999"}},"#
            + #""DatetimeNegative":{"$date":{"$numberLong":"-62135596800000"}},"#
            + #""Minkey":{"$minKey":1},"Maxkey":{"$maxKey":1},"Null":null}"#
        #expect(document.extendedJSON(mode: .canonical) == canonical)
        let relaxed = document.extendedJSON(mode: .relaxed)
        #expect(relaxed.contains(#""Int32":42,"Int64":42,"Double":42.42,"#))
        #expect(relaxed.contains(#""DatetimeEpoch":{"$date":"1970-01-01T00:00:00Z"}"#))
        #expect(relaxed.contains(#""DatetimePositive":{"$date":"9999-12-31T23:59:59.999Z"}"#))
        #expect(relaxed.contains(#""DatetimeNegative":{"$date":{"$numberLong":"-62135596800000"}}"#))
    }

    @Test func documentsAppendToAnExistingBuffer() {
        var buffer = Array("[".utf8)
        BSONDocument(dictionaryLiteral: ("a", 1)).appendExtendedJSON(to: &buffer, mode: .relaxed)
        buffer.append(UInt8(ascii: "]"))
        #expect(String(decoding: buffer, as: UTF8.self) == #"[{"a":1}]"#)
    }
}
