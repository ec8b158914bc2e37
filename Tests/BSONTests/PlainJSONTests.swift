import BSON
import Testing

@Suite struct PlainJSONTests {
    @Test func dollarKeysAreKeysAndNoTypeWrappers() throws {
        let text = #"{"n": {"$numberLong": "5"}, "d": {"case": 1, "$date": 2}, "o": {"$oid": "not hex"}, "i": 7}"#
        let document = try PlainJSON.parseDocument(Array(text.utf8))
        #expect(document["n"] == ["$numberLong": "5"])
        #expect(document["d"] == ["case": 1, "$date": 2])
        #expect(document["o"] == ["$oid": "not hex"])
        #expect(document["i"] == .int32(7))
        #expect(try PlainJSON.parseValue(Array(#"{"$numberLong": "5"}"#.utf8)) == ["$numberLong": "5"])
        // The same text as Extended JSON: the wrapper is a number, the mixed object an error.
        #expect(try ExtendedJSON.parseValue(#"{"$numberLong": "5"}"#) == .int64(5))
        #expect(throws: ExtendedJSONError.self) { try ExtendedJSON.parseDocument(text) }
    }

    @Test func jsonItselfIsCheckedAsExtendedJSONChecksIt() {
        for bad in [#"{"a": 1, "a": 2}"#, #"{"a": }"#, #"{"a": 1} x"#, "[1]", #"{"a": "\#u{1}"}"#] {
            #expect(throws: ExtendedJSONError.self, "\(bad)") { try PlainJSON.parseDocument(Array(bad.utf8)) }
        }
    }
}
