import Testing

@testable import BSON

@Suite struct BSONDocumentWriterTests {
    @Test func writesTheBytesEncodingTheSameDocumentWouldGive() throws {
        let id = ObjectId()
        let date = BSONDate(millisecondsSinceEpoch: -1_234_567)
        for strings in [[], ["one"], (0..<12).map { "line \($0) é 😀" }] {
            var writer = BSONDocumentWriter(capacity: 8)
            writer.append("_id", id)
            writer.append("name", "Dune\u{0}with a NUL")
            writer.append("count", Int64.min)
            writer.append("ratio", -0.1)
            writer.append("at", date)
            writer.append("lines", strings: strings)
            writer.append("empty", "")
            let expected: BSONDocument = [
                "_id": .objectId(id), "name": "Dune\u{0}with a NUL", "count": .int64(.min), "ratio": .double(-0.1),
                "at": .datetime(date), "lines": .array(strings.map { .string($0) }), "empty": "",
            ]
            let bytes = writer.finish()
            #expect(bytes == (try expected.bsonBytes))
            #expect(try bytes.withUnsafeBytes { try BSONDocument(bsonBytes: $0) } == expected)
        }
    }

    @Test func anEmptyWriterIsTheEmptyDocument() throws {
        #expect(BSONDocumentWriter().finish() == (try BSONDocument().bsonBytes))
    }
}
