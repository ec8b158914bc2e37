import BSON
import Testing

@Suite struct BSONDocumentPathTests {
    static let sample: BSONDocument = [
        "volumeInfo": ["title": "Dune", "authors": ["Frank Herbert"]],
        "tokens": ["t0", ["device": "phone"]],
        "count": 3,
    ]

    @Test func readsThroughDocumentsAndArrays() {
        let doc = Self.sample
        #expect(doc.value(atPath: "volumeInfo.title") == "Dune")
        #expect(doc.value(atPath: "volumeInfo.authors.0") == "Frank Herbert")
        #expect(doc.value(atPath: "tokens.1.device") == "phone")
        #expect(doc.value(atPath: "tokens.2") == nil)
        #expect(doc.value(atPath: "tokens.-1") == nil)
        #expect(doc.value(atPath: "tokens.+1") == nil)
        #expect(doc.value(atPath: "count.x") == nil)
        #expect(doc.value(atPath: "missing.x") == nil)
        #expect(doc.value(atPath: "volumeInfo") == ["title": "Dune", "authors": ["Frank Herbert"]])
    }

    @Test func setCreatesDocumentsAndPadsArraysWithNull() throws {
        var doc = Self.sample
        try doc.setValue("Herbert", atPath: "volumeInfo.authors.2")
        #expect(doc.value(atPath: "volumeInfo.authors") == ["Frank Herbert", .null, "Herbert"])
        try doc.setValue(1, atPath: "a.b.c")
        #expect(doc["a"] == ["b": ["c": 1]])
        try doc.setValue("x", atPath: "tokens.3.kind")
        #expect(doc["tokens"] == ["t0", ["device": "phone"], .null, ["kind": "x"]])
        try doc.setValue(9, atPath: "count")
        #expect(doc["count"] == 9)
        #expect(doc.keys == ["volumeInfo", "tokens", "count", "a"])
    }

    @Test func setThroughAScalarIsAnError() {
        var doc = Self.sample
        #expect(throws: BSONPathError.notTraversable(path: "count", component: "x", type: "int")) {
            try doc.setValue(1, atPath: "count.x")
        }
        #expect(throws: BSONPathError.notTraversable(path: "title", component: "y", type: "string")) {
            try doc.setValue(1, atPath: "volumeInfo.title.y")
        }
        #expect(throws: BSONPathError.notTraversable(path: "tokens", component: "name", type: "array")) {
            try doc.setValue(1, atPath: "tokens.name")
        }
        #expect(throws: BSONPathError.notTraversable(path: "0", component: "z", type: "string")) {
            try doc.setValue(1, atPath: "tokens.0.z")
        }
        #expect(throws: BSONPathError.emptyComponent) { try doc.setValue(1, atPath: "a..b") }
        let deepPath = Array(repeating: "a", count: 50_000).joined(separator: ".")
        #expect(throws: BSONPathError.tooManyComponents(count: 50_000)) { try doc.setValue(1, atPath: deepPath) }
        #expect(throws: BSONPathError.emptyComponent) { try doc.setValue(1, atPath: "") }
        #expect(doc == Self.sample)
        #expect(
            BSONPathError.notTraversable(path: "count", component: "x", type: "int").description
                == "Cannot create field 'x' in element {count: <int>}")
    }

    @Test func removeUnsetsFieldsAndNullsArrayElements() {
        var doc = Self.sample
        #expect(doc.removeValue(atPath: "volumeInfo.title") == "Dune")
        #expect(doc["volumeInfo"] == ["authors": ["Frank Herbert"]])
        #expect(doc.removeValue(atPath: "tokens.0") == "t0")
        #expect(doc["tokens"] == [.null, ["device": "phone"]])
        #expect(doc.removeValue(atPath: "tokens.1.device") == "phone")
        #expect(doc.removeValue(atPath: "tokens.5") == nil)
        #expect(doc.removeValue(atPath: "count.x") == nil)
        #expect(doc.removeValue(atPath: "missing") == nil)
        #expect(doc.removeValue(atPath: "count") == 3)
        #expect(doc.keys == ["volumeInfo", "tokens"])
    }
}
