import BSON
import Testing

@Suite struct BSONDocumentTests {
    @Test func keepsOrderAndReplacesInPlace() {
        var doc: BSONDocument = ["b": 1, "a": 2]
        doc["b"] = "x"
        doc["c"] = true
        #expect(doc.keys == ["b", "a", "c"])
        #expect(doc["b"] == "x")
    }
}
