import BSON
import Testing

@testable import DocumentStore

/// `$regex` evaluated by PCRE2 under match limits: MongoDB's syntax and options, MongoDB's errors, and a bounded
/// cost for patterns that backtrack catastrophically.
@Suite struct QueryRegexTests {
    static let backtrackingSubject = String(repeating: "a", count: 26) + "!"

    @Test(arguments: ["(.*a){20}$", "(a+)+$"])
    func catastrophicBacktrackingFailsTheQueryWithMongoDBsError(pattern: String) async throws {
        try await withStore(.sqlite) { store in
            let collection = store.database("app").collection("texts")
            try await collection.insertOne(["_id": 1, "text": .string(Self.backtrackingSubject)])
            let error = await expectStoreError(51156) {
                _ = try await collection.find(["text": ["$regex": .string(pattern)]]).toArray()
            }
            #expect(error?.message.contains("match limit exceeded") == true, "\(String(describing: error))")
            // The store goes on answering: the same collection with a pattern that matches.
            #expect(try await collection.countDocuments(["text": ["$regex": "^a+!"]]) == 1)
        }
    }

    @Test func aFilterThatHitsTheLimitRaisesItOnEvaluateAndDoesNotMatch() throws {
        let filter = try QueryFilter(["text": regex("(.*a){20}$")])
        let document: BSONDocument = ["text": .string(Self.backtrackingSubject)]
        #expect(throws: StoreError.self) { try filter.evaluate(document) }
        #expect(filter.match(document) == nil)
    }

    @Test func syntaxOnlyPCREHasIsUnderstood() throws {
        // Recursion and branch reset: PCRE2 syntax that ICU's engine refused as invalid.
        #expect(
            try matchingIDs(["s": regex(#"^(\((?1)*\))$"#)], [["_id": 1, "s": "(()())"], ["_id": 2, "s": "(()"]]) == [1]
        )
        #expect(
            try matchingIDs(["s": regex("^(?|a(b)|c(d))$")], [["_id": 1, "s": "cd"], ["_id": 2, "s": "ad"]]) == [1])
    }

    @Test func mongoDBsOptionsApply() throws {
        let documents: [BSONDocument] = [["_id": 1, "s": "First\nsecond line"], ["_id": 2, "s": "café"]]
        #expect(try matchingIDs(["s": ["$regex": "^second", "$options": "m"]], documents) == [1])
        #expect(try matchingIDs(["s": ["$regex": "first.second", "$options": "is"]], documents) == [1])
        #expect(try matchingIDs(["s": ["$regex": "first . second # a comment", "$options": "isx"]], documents) == [1])
        // UTF-8 mode always, as on the server: `.` is one character, not one byte.
        #expect(try matchingIDs(["s": ["$regex": "^caf.$", "$options": "u"]], documents) == [2])
        #expect(filterError(["s": ["$regex": "a", "$options": "g"]])?.code == 51108)
    }

    @Test func invalidPatternsAreRefusedAsTheServerRefusesThem() {
        let invalid = filterError(["s": ["$regex": "[)"]])
        #expect(invalid?.code == 51091)
        #expect(invalid?.message.hasPrefix("Regular expression is invalid: missing terminating ]") == true)
        #expect(filterError(["s": ["$regex": "a\u{0}b"]])?.code == .badValue)
    }

    @Test func compiledPatternsAreSharedAndTheCacheIsBounded() throws {
        let cache = PatternCache(capacity: 2)
        let first = try cache.pattern("^a", options: "")
        #expect(try cache.pattern("^a", options: "") === first)
        _ = try cache.pattern("^b", options: "")
        _ = try cache.pattern("^c", options: "i")
        #expect(cache.count == 2)
        #expect(throws: StoreError.self) { try cache.pattern("(", options: "") }
        #expect(cache.count == 2)
    }
}
