import BSON
import Testing

@Suite struct BSONDocumentTests {
    @Test func keepsOrderAndReplacesInPlace() {
        var doc: BSONDocument = ["b": 1, "a": 2]
        doc["b"] = "x"
        doc["c"] = true
        #expect(doc.keys == ["b", "a", "c"])
        #expect(doc["b"] == "x")
        #expect(doc.values == ["x", 2, true])
    }

    @Test func repeatedKeyInPairsReplacesTheEarlierValueInPlace() {
        let doc = BSONDocument([("a", 1), ("b", 2), ("a", 3)])
        #expect(doc.keys == ["a", "b"])
        #expect(doc["a"] == 3)
    }

    @Test func removalAndInsertion() {
        var doc: BSONDocument = ["a": 1, "b": 2, "c": 3]
        #expect(doc.removeValue(forKey: "b") == 2)
        #expect(doc.removeValue(forKey: "b") == nil)
        doc["a"] = nil
        #expect(doc.keys == ["c"])
        doc.insert("z", 26, at: 0)
        #expect(doc.keys == ["z", "c"])
        #expect(doc.position(of: "c") == 1)
        #expect(doc[1].key == "c")
        #expect(!doc.contains("a"))
    }

    @Test func largeDocumentsKeepLookupCorrectThroughEdits() {
        var doc = BSONDocument()
        for i in 0..<100 { doc["k\(i)"] = .int32(Int32(i)) }
        #expect(doc.count == 100)
        for i in stride(from: 0, to: 100, by: 3) { doc.removeValue(forKey: "k\(i)") }
        doc.insert("front", "f", at: 0)
        doc.insert("middle", "m", at: 30)
        doc["k1"] = "replaced"
        for i in 0..<100 {
            if i.isMultiple(of: 3) {
                #expect(doc["k\(i)"] == nil)
            } else if i == 1 {
                #expect(doc["k1"] == "replaced")
            } else {
                #expect(doc["k\(i)"] == .int32(Int32(i)))
            }
        }
        for (position, key) in doc.keys.enumerated() { #expect(doc.position(of: key) == position) }
        #expect(doc["front"] == "f" && doc.position(of: "front") == 0)
        #expect(doc.position(of: "middle") == 30)
        // Shrinking below the index threshold goes back to scanning, still correct.
        while doc.count > 3 { doc.remove(at: 1) }
        #expect(doc.keys.count == 3)
        for (position, key) in doc.keys.enumerated() { #expect(doc.position(of: key) == position) }
    }

    @Test func firstDuplicateKeyAfterUncheckedAppends() {
        var doc: BSONDocument = ["a": 1, "b": 2]
        #expect(doc.firstDuplicateKey == nil)
        doc.append("b", 3)
        doc.append("a", 4)
        #expect(doc.firstDuplicateKey == "b")
        // Lookup finds the first occurrence.
        #expect(doc["b"] == 2)
        let appendedDuplicate = doc.appendUnique("a", 5)
        let appendedNew = doc.appendUnique("c", 5)
        #expect(!appendedDuplicate && appendedNew)
        #expect(doc["a"] == 1 && doc["c"] == 5)
        var large = BSONDocument()
        for i in 0..<20 { large.append("k\(i)", 1) }
        large.append("k3", 2)
        #expect(large.firstDuplicateKey == "k3")
        #expect(large["k3"] == 1)
    }

    @Test func keysAreDistinguishedByTheirBytes() throws {
        // Precomposed "é" and "e" + combining acute are canonically equivalent in Swift but distinct in BSON.
        var doc: BSONDocument = ["\u{E9}": 1]
        doc["e\u{301}"] = 2
        #expect(doc.count == 2)
        #expect(doc["\u{E9}"] == 1 && doc["e\u{301}"] == 2)
        #expect(doc.firstDuplicateKey == nil)
        #expect(doc != ["e\u{301}": 1, "\u{E9}": 2])
        var large = BSONDocument()
        for i in 0..<20 { large["k\(i)"] = 0 }
        large["\u{E9}"] = 1
        large["e\u{301}"] = 2
        #expect(large.count == 22 && large["e\u{301}"] == 2)
        #expect(try BSONDocument(bsonBytes: doc.bsonBytes) == doc)
    }

    @Test func equalityIsExactAndOrdered() {
        let ab: BSONDocument = ["a": 1, "b": 2]
        #expect(ab == ["a": 1, "b": 2])
        #expect(ab != ["b": 2, "a": 1])
        #expect((["a": 1] as BSONDocument) != ["a": 1.0])
        #expect((["a": .double(.nan)] as BSONDocument) == ["a": .double(.nan)])
        #expect((["a": .double(0.0)] as BSONDocument) != ["a": .double(-0.0)])
        #expect(Set<BSONDocument>([["a": 1], ["a": 1], ["a": 2]]).count == 2)
    }
}
