import BSON
import Testing

@Suite struct ExtendedJSONReaderTests {
    let oid = ObjectId(hex: "6650a1f4c2b9e83d17a4f0c2")!

    /// The value of `a` in `{"a": <json>}`.
    func value(_ json: String) throws -> BSON? {
        try ExtendedJSON.parseDocument(#"{"a":\#(json)}"#)["a"]
    }

    func error(_ text: String) -> ExtendedJSONError? {
        do {
            _ = try ExtendedJSON.parseDocuments(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func relaxedNumbersTakeTheSmallestFittingType() throws {
        #expect(try value("1") == .int32(1))
        #expect(try value("-0") == .int32(0))
        #expect(try value("2147483647") == .int32(.max))
        #expect(try value("-2147483648") == .int32(.min))
        #expect(try value("2147483648") == .int64(2_147_483_648))
        #expect(try value("-2147483649") == .int64(-2_147_483_649))
        #expect(try value("9223372036854775807") == .int64(.max))
        #expect(try value("-9223372036854775808") == .int64(.min))
        #expect(try value("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try value("123456789012345678901234567890") == .double(1.2345678901234568e29))
        #expect(try value("1.0") == .double(1))
        #expect(try value("-0.0") == .double(-0.0))
        #expect(try value("1e2") == .double(100))
        #expect(try value("1E+308") == .double(1e308))
        #expect(try value("5e-324") == .double(Double.leastNonzeroMagnitude))
        #expect(try value("2.2250738585072011e-308") == .double(Double.leastNormalMagnitude.nextDown))
        #expect(try value("0.1") == .double(0.1))
        #expect(try value("1.2345678901234567890123") == .double(1.2345678901234568))
        #expect(try value("0.000000000000000000000000000001") == .double(1e-30))
    }

    @Test func canonicalWrappersReadAsTheirTypes() throws {
        #expect(try value(#"{"$numberInt":"-42"}"#) == .int32(-42))
        #expect(try value(#"{"$numberLong":"42"}"#) == .int64(42))
        #expect(try value(#"{"$numberDouble":"1.0"}"#) == .double(1))
        #expect(try value(#"{"$numberDouble":"-0.0"}"#) == .double(-0.0))
        #expect(try value(#"{"$numberDouble":"9.8765432101234E+17"}"#) == .double(9.8765432101234e17))
        #expect(try value(#"{"$numberDouble":"Infinity"}"#) == .double(.infinity))
        #expect(try value(#"{"$numberDouble":"-Infinity"}"#) == .double(-.infinity))
        #expect(try value(#"{"$numberDouble":"NaN"}"#) == .double(.nan))
        #expect(try value(#"{"$numberDecimal":"1.5E+3"}"#) == .decimal128(Decimal128("15E+2")!))
        #expect(try value(#"{"$oid":"6650A1F4C2B9E83D17A4F0C2"}"#) == .objectId(oid))
        #expect(try value(#"{"$symbol":"s"}"#) == .symbol("s"))
        #expect(try value(#"{"$code":"c"}"#) == .javascript("c"))
        #expect(
            try value(#"{"$scope":{"x":1},"$code":"c"}"#)
                == .javascriptWithScope(BSONCodeWithScope(code: "c", scope: ["x": 1])))
        #expect(
            try value(#"{"$timestamp":{"t":4294967295,"i":1}}"#) == .timestamp(BSONTimestamp(time: .max, increment: 1)))
        #expect(
            try value(#"{"$regularExpression":{"pattern":"a.c","options":"xi"}}"#)
                == .regex(BSONRegularExpression(pattern: "a.c", options: "ix")))
        #expect(
            try value(#"{"$dbPointer":{"$ref":"db.c","$id":{"$oid":"6650a1f4c2b9e83d17a4f0c2"}}}"#)
                == .dbPointer(BSONDBPointer(namespace: "db.c", id: oid)))
        #expect(try value(#"{"$minKey":1}"#) == .minKey)
        #expect(try value(#"{"$maxKey":1}"#) == .maxKey)
        #expect(try value(#"{"$undefined":true}"#) == .undefined)
        #expect(
            try value(#"{"$binary":{"base64":"yv4=","subType":"80"}}"#)
                == .binary(BSONBinary(subtype: 0x80, data: [0xCA, 0xFE])))
        #expect(try value(#"{"$binary":{"subType":"5","base64":""}}"#) == .binary(BSONBinary(subtype: 5, data: [])))
        #expect(
            try value(#"{ "$date" : { "$numberLong" : "-1234567890123" } }"#)
                == .datetime(BSONDate(millisecondsSinceEpoch: -1_234_567_890_123)))
    }

    @Test func legacyFormsAreAccepted() throws {
        #expect(try value(#"{"$binary":"yv4=","$type":"00"}"#) == .binary(BSONBinary(subtype: 0, data: [0xCA, 0xFE])))
        #expect(try value(#"{"$type":"80","$binary":""}"#) == .binary(BSONBinary(subtype: 0x80, data: [])))
        #expect(
            try value(#"{"$regex":"^a","$options":"mi"}"#)
                == .regex(BSONRegularExpression(pattern: "^a", options: "im")))
        #expect(try value(#"{"$regex":"^a"}"#) == .regex(BSONRegularExpression(pattern: "^a")))
        let uuid = BSON.binary(
            BSONBinary(
                subtype: 4,
                data: [
                    0x3F, 0x2A, 0x6C, 0x1E, 0x9B, 0x4D, 0x4E, 0x7A,
                    0x8C, 0x15, 0x2D, 0x6E, 0x9F, 0x0A, 0x7B, 0x3C,
                ]))
        #expect(try value(#"{"$uuid":"3f2a6c1e-9b4d-4e7a-8c15-2d6e9f0a7b3c"}"#) == uuid)
        #expect(try value(#"{"$uuid":"3F2A6C1E9B4D4E7A8C152D6E9F0A7B3C"}"#) == uuid)
    }

    @Test(
        arguments: [
            ("2024-03-15T09:41:07.250Z", 1_710_495_667_250),
            ("2024-03-15T09:41:07Z", 1_710_495_667_000),
            ("2024-03-15T10:41:07.250+01:00", 1_710_495_667_250),
            ("2024-03-15T09:11:07.250-0030", 1_710_495_667_250),
            ("2024-03-15t09:41:07.2509z", 1_710_495_667_250),
            ("1970-01-01T00:00:00Z", 0),
            ("1969-12-31T23:59:59.999Z", -1),
            ("0000-01-01T00:00:00Z", -62_167_219_200_000),
            ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
            ("2000-02-29T00:00:00Z", 951_782_400_000),
        ] as [(String, Int64)])
    func dateTextReadsAsMilliseconds(text: String, ms: Int64) throws {
        #expect(try value(#"{"$date":"\#(text)"}"#) == .datetime(BSONDate(millisecondsSinceEpoch: ms)))
    }

    @Test func keyOrderIsKeptAndTheTopLevelDocumentIsNeverAWrapper() throws {
        let document = try ExtendedJSON.parseDocument(#" { "z" : 1 , "$oid" : "x", "a" : [ ] } "#)
        #expect(document.keys == ["z", "$oid", "a"])
        let dbRef = try value(#"{"$ref":"c","$id":{"$oid":"6650a1f4c2b9e83d17a4f0c2"},"$db":"d"}"#)
        #expect(dbRef == .document(["$ref": "c", "$id": .objectId(oid), "$db": "d"]))
        #expect(try value(#"{"$gt":1}"#) == .document(["$gt": 1]))
        #expect(try value(#"{"\u0024numberInt":"5"}"#) == .int32(5))
        #expect(try value(#"{"$type":"string"}"#) == .document(["$type": "string"]))
        let queryOperator = try value(
            #"{"$regex":{"$regularExpression":{"pattern":"dune*","options":""}},"$options":"ix"}"#)
        #expect(
            queryOperator == .document(["$regex": .regex(BSONRegularExpression(pattern: "dune*")), "$options": "ix"]))
    }

    @Test func stringsDecodeEscapesAndUnicode() throws {
        #expect(try value(#""a\"\\\/\b\f\n\r\t\u00e9\u20AC\ud83d\ude00""#) == .string("a\"\\/\u{8}\u{C}\n\r\t\u{E9}€😀"))
        #expect(try value("\"é😀\"") == .string("é😀"))
        #expect(try value(#""\u0000""#) == .string("\u{0}"))
    }

    @Test func topLevelFormsAreDocumentsArraysOfDocumentsOrValues() throws {
        #expect(try ExtendedJSON.parseDocuments(#"[{"a":1},{"b":2}]"#) == [["a": 1], ["b": 2]])
        #expect(try ExtendedJSON.parseDocuments(#"{"a":1}"#) == [["a": 1]])
        #expect(try ExtendedJSON.parseDocuments("[]") == [])
        #expect(
            try ExtendedJSON.parseDocuments(#"[{"$oid":"6650a1f4c2b9e83d17a4f0c2"}]"#) == [
                ["$oid": "6650a1f4c2b9e83d17a4f0c2"]
            ])
        #expect(try ExtendedJSON.parseValue(#"{"$numberLong":"7"}"#) == .int64(7))
        #expect(try ExtendedJSON.parseValue(" [1, \"x\", null] ") == [1, "x", .null])
        #expect(try ExtendedJSON.parseValue("true") == .bool(true))
        #expect(try BSONDocument(extendedJSON: #"{"a":{"b":{}}}"#) == ["a": ["b": .document([:])]])
    }

    // MARK: Errors

    @Test(
        arguments: [
            (#"{"a":1 "b":2}"#, 1, 8, "expected ',' or '}' after object member"),
            ("{\n  \"a\": 1,\n  \"a\": 2\n}", 3, 3, "duplicate key 'a'"),
            ("{\"é\": tru}", 1, 7, "unexpected 't': expected a value"),
            ("{\"a\": [1 2]}", 1, 10, "expected ',' or ']' after array element"),
            ("{\"a\": 01}", 1, 7, "leading zeros are not allowed in numbers"),
            ("{\"a\": 1.}", 1, 7, "expected a digit after the decimal point"),
            ("{\"a\": 1e}", 1, 7, "expected a digit in the exponent"),
            ("{\"a\": -}", 1, 7, "expected a digit after '-'"),
            ("{\"a\": \"x}", 1, 7, "unterminated string"),
            ("{\"a\": \"\t\"}", 1, 8, "control character byte 0x9 in a string must be escaped"),
            (#"{"a": "\x"}"#, 1, 8, "invalid escape sequence: '\\' followed by 'x'"),
            (#"{"a": "\ud800"}"#, 1, 8, "lone surrogate \\uD800"),
            (#"{"a": "\udc00\ud800"}"#, 1, 8, "lone surrogate \\uDC00"),
            (#"{"a": "\ud800\u0041"}"#, 1, 8, "lone surrogate \\uD800"),
            (#"{"a": "\u12"}"#, 1, 12, "expected four hexadecimal digits after \\u"),
            (#"{"a\u0000": 1}"#, 1, 2, "key contains U+0000, which BSON cannot store"),
            ("{\"a\": 1e400}", 1, 7, "number 1e400 is out of range for a double"),
            (#"{"a": 1}x"#, 1, 9, "unexpected text after the document"),
            ("", 1, 1, "empty input: expected a document"),
            ("{", 1, 2, "expected '\"' to start a key, or '}'"),
            ("{\"a\":1,}", 1, 8, "expected '\"' to start a key after ','"),
            ("{\"a\" 1}", 1, 6, "expected ':' after object key"),
            ("{\"a\":", 1, 6, "unexpected end of input: expected a value"),
            ("[1]", 1, 2, "expected '{': the elements of a top-level array must be documents"),
            ("\"x\"", 1, 1, "expected '{' or '[' to start a document or an array of documents"),
        ] as [(String, Int, Int, String)])
    func syntaxErrorsSayWhatWasExpectedAndWhere(text: String, line: Int, column: Int, message: String) {
        let error = error(text)
        #expect(error?.message == message)
        #expect(error?.line == line)
        #expect(error?.column == column)
    }

    @Test func invalidUTF8IsRejectedAtTheOffendingByte() {
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            let input = Array(#"{"a": "xy"#.utf8) + bad + Array(#""}"#.utf8)
            do {
                _ = try ExtendedJSON.parseDocument(input)
                Issue.record("accepted invalid UTF-8 \(bad)")
            } catch {
                #expect(error.offset == 9)
                #expect(error.column == 10)
                #expect(error.message.contains("UTF-8"))
            }
        }
    }

    @Test func columnsCountUnicodeScalarsNotBytes() {
        let error = error("{\"ééé\": 1,\n \"😀\": x}")
        #expect(error?.line == 2)
        #expect(error?.column == 7)
        #expect(error?.description == "2:7: unexpected 'x': expected a value")
    }

    @Test(arguments: [
        #"{"$oid":"xyz"}"#, #"{"$oid":42}"#, #"{"$oid":"665b0e27d41c9a58e3f6b104","unrelated":true}"#,
        #"{"$oid":"665b0e27d41c9a58e3f6b10g"}"#,
        #"{"$numberInt":"2147483648"}"#, #"{"$numberInt":"1.5"}"#, #"{"$numberInt":42}"#, #"{"$numberInt":""}"#,
        #"{"$numberInt":"+1"}"#, #"{"$numberInt":"42","unrelated":true}"#,
        #"{"$numberLong":"9223372036854775808"}"#, #"{"$numberLong":42}"#, #"{"$numberLong":"1e3"}"#,
        #"{"$numberDouble":42}"#, #"{"$numberDouble":"inf"}"#, #"{"$numberDouble":"0x10"}"#,
        #"{"$numberDouble":"1e999"}"#, #"{"$numberDouble":".1","unrelated":true}"#, #"{"$numberDouble":"1e"}"#,
        #"{"$numberDecimal":42}"#, #"{"$numberDecimal":"1.2.3"}"#, #"{"$numberDecimal":".1","unrelated":true}"#,
        #"{"$numberDecimal":"12345678901234567890123456789012345"}"#,
        #"{"$binary":0,"$type":"00"}"#, #"{"$binary":"","$type":0}"#, #"{"$binary":"yv4="}"#,
        #"{"$binary":"yv4=","$type":"00","unrelated":true}"#, #"{"$binary":"v4=","$type":"00"}"#,
        #"{"$binary":{"base64":"yv4=","subType":"100"}}"#, #"{"$binary":{"base64":"yv4=","subType":"zz"}}"#,
        #"{"$binary":{"base64":"yv4","subType":"00"}}"#, #"{"$binary":{"base64":"yv4=","subType":0}}"#,
        #"{"$binary":{"base64":"yv4="}}"#, #"{"$binary":{"base64":"yv4=","subType":"00","x":1}}"#,
        #"{"$binary":{"base64":"yv4=","subType":"00"},"$type":"00"}"#, #"{"$binary":{"base64":"!!!!","subType":"00"}}"#,
        #"{"$code":42}"#, #"{"$code":"","unrelated":true}"#, #"{"$code":"","$scope":42}"#, #"{"$scope":{}}"#,
        #"{"$timestamp":42}"#, #"{"$timestamp":{"t":"123456789","i":42}}"#, #"{"$timestamp":{"t":1,"i":"42"}}"#,
        #"{"$timestamp":{"t":1,"i":42},"unrelated":true}"#, #"{"$timestamp":{"t":1,"i":42,"unrelated":true}}"#,
        #"{"$timestamp":{"i":42}}"#, #"{"$timestamp":{"t":-1,"i":42}}"#, #"{"$timestamp":{"t":4294967296,"i":0}}"#,
        #"{"$timestamp":{"t":{"$numberInt":"1"},"i":1}}"#,
        #"{"$regularExpression":{"pattern":"abc","options":"","unrelated":true}}"#,
        #"{"$regularExpression":{"pattern":"abc"}}"#, #"{"$regularExpression":{"pattern":42,"options":""}}"#,
        #"{"$regularExpression":{"options":"ix"}}"#, #"{"$regularExpression":{"pattern":"a\u0000","options":""}}"#,
        #"{"$regex":"a","$options":1}"#, #"{"$regex":"a","$options":"i","x":1}"#,
        #"{"$date":"2024-13-01T00:00:00Z"}"#, #"{"$date":"2023-02-29T00:00:00Z"}"#, #"{"$date":"2024-03-15"}"#,
        #"{"$date":"2024-03-15T09:41:07.250"}"#, #"{"$date":"2024-03-15T24:00:00Z"}"#, #"{"$date":1.5}"#,
        #"{"$date":{"$numberLong":"1717000000321"},"unrelated":true}"#, #"{"$date":{"$numberInt":"1"}}"#,
        #"{"$date":true}"#, #"{"$date":42}"#, #"{"$date":1717000000321}"#, #"{"$date":-1}"#,
        #"{"$ref":42}"#, #"{"$ref":42,"$id":"abc"}"#, #"{"$ref":"a","$db":42}"#,
        #"{"$minKey":true}"#, #"{"$minKey":0}"#, #"{"$minKey":1,"unrelated":true}"#, #"{"$minKey":{"$numberInt":"1"}}"#,
        #"{"$maxKey":true}"#, #"{"$maxKey":0}"#, #"{"$maxKey":1,"unrelated":true}"#,
        #"{"$undefined":false}"#, #"{"$undefined":1}"#,
        #"{"$dbPointer":{"a":{"$numberInt":"1"},"$id":{"$oid":"665b0e27d41c9a58e3f6b104"},"c":{"$numberInt":"2"},"$ref":"b"}}"#,
        #"{"$dbPointer":{"$ref":"b","$id":"665b0e27d41c9a58e3f6b104"}}"#,
        #"{"$uuid":"3f2a6c1e-9b4d-4e7a-8c15"}"#, #"{"$uuid":"3f2a6c1ex9b4dx4e7ax8c15x2d6e9f0a7b3c"}"#,
        #"{"$oid":"665b0e27d41c9a58e3f6b104","$date":"2024-03-15T09:41:07Z"}"#,
    ])
    func malformedWrappersAreErrorsAtTheirOpeningBrace(json: String) {
        let failure = error(#"{"a": "# + json + "}")
        #expect(failure != nil, "accepted \(json)")
        #expect(failure?.column == 7, "\(String(describing: failure))")
    }

    @Test func wrapperErrorsNameTheProblem() {
        #expect(error(#"{"a":{"$date":"x","unrelated":1}}"#)?.message == "unexpected key 'unrelated' beside '$date'")
        #expect(error(#"{"a":{"$oid":"xyz"}}"#)?.message == "$oid must be 24 hexadecimal digits")
        #expect(
            error(#"{"a":{"$numberInt":"2147483648"}}"#)?.message
                == #"$numberInt must be a 32-bit integer as a string, like "42""#)
        #expect(error(#"{"a":{"$binary":"yv4="}}"#)?.message == "'$binary' needs a '$type' key")
        // An inner wrapper's error points at the inner wrapper.
        let inner = error(#"{"a":{"$date":{"$numberLong":"x"}}}"#)
        #expect(inner?.column == 15)
        #expect(inner?.message == #"$numberLong must be a 64-bit integer as a string, like "42""#)
    }

    @Test func nestingIsLimitedWithoutExhaustingTheStack() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let arrayError = error(#"{"a":"# + deep + "}")
        #expect(arrayError?.message == "nesting deeper than 1000 levels")
        #expect(arrayError?.column == 1 + 5 + 999)
        let objects = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(error(objects)?.message == "nesting deeper than 1000 levels")
        let allowed = String(repeating: #"{"a":"#, count: 1000) + "1" + String(repeating: "}", count: 1000)
        #expect(try ExtendedJSON.parseDocument(allowed).count == 1)
    }
}
