import Foundation
import TestSupport
import Testing

@Suite struct GenerateEventCommandTests {
    static let book =
        #"{"_id": {"$oid": "64b7f0c2a1b2c3d4e5f60718"}, "title": "Dune", "meta": {"pages": 412, "tags": ["sf"]}}"#
    static let key = #"{"_id": {"$oid": "64b7f0c2a1b2c3d4e5f60718"}}"#

    /// Whether a parsed JSON value equals the JSON `text`, compared as sorted-key JSON (so key order and
    /// Foundation's number bridging do not matter; `canonicalOutputKeepsTypes` checks the event's key order).
    func same(_ value: Any?, _ text: String) -> Bool {
        guard let value,
            let expected = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        else { return false }
        func sorted(_ value: Any) -> Data? {
            try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        }
        return sorted(value) != nil && sorted(value) == sorted(expected)
    }

    /// Runs `generate-event` with `book.json` written in a fresh directory; returns the event as JSON.
    func event(_ arguments: [String], files: [String: String] = ["book.json": book]) throws -> [String: Any] {
        let directory = try TemporaryDirectory()
        for (name, contents) in files { try directory.write(name, contents) }
        let run = try switchyard(["generate-event"] + arguments, in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("}\n") && run.stdout.filter { $0 == "\n" }.count == 1)
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
        return try #require(object as? [String: Any])
    }

    func expectCommonShape(_ event: [String: Any], _ operationType: String) {
        #expect(event["operationType"] as? String == operationType)
        #expect(same(event["ns"], #"{"db": "product", "coll": "book"}"#))
        #expect(same(event["documentKey"], Self.key))
        #expect((event["_id"] as? [String: Any])?["_data"] is String)
        #expect(event["clusterTime"] != nil && event["wallTime"] != nil)
    }

    @Test func insert() throws {
        let event = try event(["insert", "--ns", "product.book", "--document", "book.json"])
        expectCommonShape(event, "insert")
        #expect(same(event["fullDocument"], Self.book))
        #expect(event["updateDescription"] == nil)
        #expect(event["fullDocumentBeforeChange"] == nil)
    }

    @Test func updateWithANestedSetReportsDottedPaths() throws {
        let event = try event([
            "update", "--ns", "product.book", "--document", "book.json", "--full-document", "--pre-image",
            "--update", #"{"$set": {"meta.pages": 500, "meta.tags.0": "scifi"}, "$unset": {"title": ""}}"#,
        ])
        expectCommonShape(event, "update")
        let description = try #require(event["updateDescription"] as? [String: Any])
        #expect(same(description["updatedFields"], #"{"meta.pages": 500, "meta.tags.0": "scifi"}"#))
        #expect(same(description["removedFields"], #"["title"]"#))
        #expect(same(description["truncatedArrays"], "[]"))
        #expect(
            same(
                event["fullDocument"],
                #"{"_id": {"$oid": "64b7f0c2a1b2c3d4e5f60718"}, "meta": {"pages": 500, "tags": ["scifi"]}}"#))
        #expect(same(event["fullDocumentBeforeChange"], Self.book))
    }

    @Test func updateCarriesImagesOnlyWhenAsked() throws {
        let event = try event([
            "update", "--ns", "product.book", "--before", "book.json", "--update", #"{"$inc": {"meta.pages": 1}}"#,
        ])
        expectCommonShape(event, "update")
        #expect(event["fullDocument"] == nil)
        #expect(event["fullDocumentBeforeChange"] == nil)
    }

    @Test func updateFromTheDocumentsBeforeAndAfter() throws {
        let after = #"{"_id": {"$oid": "64b7f0c2a1b2c3d4e5f60718"}, "title": "Dune Messiah", "year": 1969}"#
        let event = try event(
            ["update", "--ns", "product.book", "--before", "book.json", "--document", "after.json"],
            files: ["book.json": Self.book, "after.json": after])
        let description = try #require(event["updateDescription"] as? [String: Any])
        #expect(same(description["updatedFields"], #"{"title": "Dune Messiah", "year": 1969}"#))
        #expect(same(description["removedFields"], #"["meta"]"#))
    }

    @Test func replace() throws {
        let replacement = #"{"title": "Children of Dune"}"#
        let event = try event(
            ["replace", "--ns", "product.book", "--before", "book.json", "--document", "new.json", "--pre-image"],
            files: ["book.json": Self.book, "new.json": replacement])
        expectCommonShape(event, "replace")
        #expect(
            same(event["fullDocument"], #"{"_id": {"$oid": "64b7f0c2a1b2c3d4e5f60718"}, "title": "Children of Dune"}"#))
        #expect(same(event["fullDocumentBeforeChange"], Self.book))
        #expect(event["updateDescription"] == nil)
    }

    @Test func delete() throws {
        let event = try event(["delete", "--ns", "product.book", "--document", "book.json", "--pre-image"])
        expectCommonShape(event, "delete")
        #expect(event["fullDocument"] == nil)
        #expect(same(event["fullDocumentBeforeChange"], Self.book))
        let without = try self.event(["delete", "--ns", "product.book", "--before", "book.json"])
        #expect(without["fullDocumentBeforeChange"] == nil)
    }

    @Test func canonicalOutputKeepsTypes() throws {
        let directory = try TemporaryDirectory()
        try directory.write("book.json", Self.book)
        let run = try switchyard(
            ["generate-event", "insert", "--ns", "product.book", "--document", "book.json", "--canonical"],
            in: directory.path)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix(#"{"_id":{"_data":""#))
        #expect(run.stdout.contains(#""},"operationType":"insert","clusterTime":{"$timestamp":"#))
        #expect(run.stdout.contains(#""pages":{"$numberInt":"412"}"#))
        #expect(run.stdout.contains(#""wallTime":{"$date":{"$numberLong":""#))
        // The event reads back as Extended JSON, as `fire --event` will read it.
        let back = try switchyard(["ejson", "--relaxed"], stdin: run.stdout)
        #expect(back.status == 0)
        #expect(back.stdout.contains(#""operationType":"insert""#))
    }

    @Test func badInputExitsWithStatus2() throws {
        let directory = try TemporaryDirectory()
        try directory.write("book.json", Self.book)
        try directory.write("broken.json", "{\"a\": }")
        let cases: [(arguments: [String], message: String)] = [
            (
                ["insrt", "--ns", "a.b"],
                "switchyard generate-event: unknown kind of event 'insrt' (did you mean 'insert'?)"
            ),
            (["insert", "--document", "book.json"], "switchyard generate-event: missing --ns DB.COLL"),
            (
                ["insert", "--ns", "product", "--document", "book.json"],
                "switchyard generate-event: --ns 'product' is not DB.COLL"
            ),
            (
                ["replace", "--ns", "a.b", "--document", "book.json"],
                "switchyard generate-event: replace takes --before"
            ),
            (["insert", "--ns", "a.b", "--document", "broken.json"], "broken.json:1:7: "),
            (
                ["update", "--ns", "a.b", "--document", "book.json", "--update", #"{"$sett": {"a": 1}}"#],
                "switchyard generate-event: Unknown modifier: $sett."
            ),
            (
                ["update", "--ns", "a.b", "--document", "book.json", "--update", #"{"$set": {"title": "Dune"}}"#],
                "switchyard generate-event: the update leaves the document as it was"
            ),
            (
                ["insert", "--ns", "local.b", "--document", "book.json"],
                "switchyard generate-event: writes to the 'local' database emit no change events"
            ),
        ]
        for (arguments, message) in cases {
            let run = try switchyard(["generate-event"] + arguments, in: directory.path)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stdout.isEmpty, "\(arguments)")
            #expect(run.stderr.hasPrefix(message), "\(arguments): \(run.stderr)")
        }
    }
}
