import Foundation
import TestSupport
import Testing

/// `switchyard data export` and `data import`, run as a user would.
@Suite struct DataCommandTests {
    @Test func exportThenImportIntoAnotherDataDirectoryGivesTheSameFiles() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write(
            "seed/product.book.json",
            """
            {"_id": 1, "price": {"$numberDecimal": "9.99"}, "at": {"$date": "2024-01-02T03:04:05.678Z"}}
            {"_id": 2, "n": {"$numberLong": "7"}, "tags": ["a", {"$minKey": 1}]}

            """)
        try app.write("seed/collections.json", #"{"product.book": {"indexes": [{"key": {"n": -1}, "name": "n_-1"}]}}"#)
        let imported = try switchyard(["data", "import", "seed"], in: app.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "imported product.book: 2 documents, 1 index\nimported 1 collection from seed\n")
        #expect(imported.stderr.isEmpty)

        let exported = try switchyard(["data", "export", "out"], in: app.path)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(
            exported.stdout
                == "exported product.book: 2 documents, 1 index → out/product.book.json\nexported 1 collection to out\n"
        )
        let file = app.read("out/product.book.json")
        #expect(
            file == """
                {"_id":{"$numberInt":"1"},"price":{"$numberDecimal":"9.99"},"at":{"$date":{"$numberLong":"1704164645678"}}}
                {"_id":{"$numberInt":"2"},"n":{"$numberLong":"7"},"tags":["a",{"$minKey":1}]}

                """)
        #expect(
            app.read("out/collections.json")
                == "{\n\"product.book\": {\"documents\":2,\"indexes\":[{\"key\":{\"n\":-1},\"name\":\"n_-1\"}]}\n}\n")

        let other = try switchyard(["data", "import", "\(app.path)/out", "--data-dir", "\(app.path)/copy"])
        #expect(other.status == 0, "\(other.stderr)")
        let again = try switchyard(["data", "export", "\(app.path)/again", "--data-dir", "\(app.path)/copy"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(app.read("again/product.book.json") == file)
        #expect(app.read("again/collections.json") == app.read("out/collections.json"))
    }

    @Test func aBadFileIsBadInputAndChangesNothing() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write("seed/product.book.json", "{\"_id\": 1, \"title\": \"Dune\"}\n")
        #expect(try switchyard(["data", "import", "seed"], in: app.path).status == 0)
        try app.write("seed/product.book.json", "{\"_id\": 2}\n{\"_id\": 3, \"title\": \"Emma\",}\n")
        let bad = try switchyard(["data", "import", "seed"], in: app.path)
        #expect(bad.status == 2)
        #expect(bad.stderr == "seed/product.book.json:2:28: expected '\"' to start a key after ','\n")
        #expect(bad.stdout.isEmpty)
        try app.write("seed/product.book.json", "{\"_id\": 2}\n{\"_id\": 2}\n")
        let duplicate = try switchyard(["data", "import", "seed"], in: app.path)
        #expect(duplicate.status == 2)
        #expect(duplicate.stderr.hasPrefix("seed/product.book.json:2:1: E11000 duplicate key error"))
        #expect(try switchyard(["data", "export", "out"], in: app.path).status == 0)
        #expect(app.read("out/product.book.json") == "{\"_id\":{\"$numberInt\":\"1\"},\"title\":\"Dune\"}\n")
    }

    @Test func wrongUsageIsBadInput() throws {
        let app = try TemporaryDirectory()
        let none = try switchyard(["data"], in: app.path)
        #expect(none.status == 2 && none.stderr.hasPrefix("switchyard data: missing 'export', 'import' or 'backup'"))
        let typo = try switchyard(["data", "improt", "seed"], in: app.path)
        #expect(
            typo.status == 2
                && typo.stderr.hasPrefix("switchyard data: unknown action 'improt' (did you mean 'import'?)"))
        let noDirectory = try switchyard(["data", "export"], in: app.path)
        #expect(noDirectory.status == 2 && noDirectory.stderr.hasPrefix("switchyard data: missing DIR"))
        let nothing = try switchyard(["data", "export", "out"], in: app.path)
        #expect(nothing.status == 2)
        #expect(nothing.stderr == "switchyard data export: no data in .switchyard (check --data-dir)\n")
        let missing = try switchyard(["data", "import", "nowhere"], in: app.path)
        #expect(missing.status == 2 && missing.stderr == "nowhere: no such directory\n")
    }

    @Test func aLargeImportReportsItsProgressInPlainLinesWhenNotOnATerminal() throws {
        let app = try TemporaryDirectory()
        let line = #"{"_id": {"$numberInt": "%d"}, "text": "\#(String(repeating: "x", count: 200))"}"#
        try app.write("seed/product.book.json", (0..<10_000).map { String(format: line, $0) }.joined(separator: "\n"))
        let run = try switchyard(["data", "import", "seed"], in: app.path)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count >= 3 && lines.allSatisfy { $0.hasPrefix("import: ") })
        #expect(lines.last == "import: 100% wrote 10000 of 10000 documents (seed/product.book.json)")
        #expect(!run.stderr.contains("\r"))
    }

    @Test func triggersFireOnlyForAnImportThatAsksForIt() throws {
        let app = try TemporaryDirectory()
        for file in ["triggers.yaml", "values.json"] {
            try FileManager.default.copyItem(
                atPath: repositoryRoot.appendingPathComponent(file).path, toPath: "\(app.path)/\(file)")
        }
        try app.write(
            "first/product.book.json",
            #"{"_id": {"$oid": "650000000000000000000001"}, "volumeInfo": {"title": "Dune"}}"# + "\n")
        let fired = try switchyard(["data", "import", "first", "--fire-triggers"], in: app.path)
        #expect(fired.status == 0, "\(fired.stderr)")
        #expect(fired.stdout.hasSuffix("trigger onBookPushNotification: 1 run, 0 failed\n"))

        // A quiet import is never delivered, not even when the triggers catch up from their resume tokens.
        try app.write("quiet/product.book.json", #"{"_id": 2, "volumeInfo": {"title": "Emma"}}"# + "\n")
        let quiet = try switchyard(["data", "import", "quiet"], in: app.path)
        #expect(quiet.stdout == "imported product.book: 1 document, 0 indexes\nimported 1 collection from quiet\n")
        try app.write("shelf/product.shelf.json", #"{"_id": 1}"# + "\n")
        let later = try switchyard(["data", "import", "shelf", "--fire-triggers"], in: app.path)
        #expect(later.status == 0, "\(later.stderr)")
        #expect(later.stdout.hasSuffix("imported 1 collection from shelf\nno trigger fired\n"))
    }
}
