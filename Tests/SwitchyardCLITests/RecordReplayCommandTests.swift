import BSON
import DocumentStore
import Foundation
import Functions
import TestSupport
import Testing

@testable import Switchyard

/// `switchyard record` and `switchyard replay` on the books app's topic trigger, whose runs are made in process
/// (the example app's functions, a data directory of SQLite) before the commands read them.
@Suite struct RecordReplayCommandTests {
    static let app = """
        appId: books
        triggers:
          - name: onBookPushNotification
            type: database
            function: sentTopicNotification
            database: product
            collection: book
            operations: [INSERT, DELETE]
            fullDocument: true
            fullDocumentBeforeChange: true
        """

    /// An app directory whose data holds two added books and the trigger's runs on them.
    static func appWithRuns() async throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", app)
        try directory.write("values.json", #"{"booksTopic": "books"}"#)
        let running = try await SwitchyardApp.open(
            directory: directory.path, registry: functionRegistry, options: SwitchyardApp.Options(variables: [:]))
        try await running.start()
        let books = running.store.database("product").collection("book")
        try await books.insertOne(["_id": "b1", "title": "Dune"])
        try await books.insertOne(["_id": "b2", "title": "Emma"])
        try await running.awaitIdle()
        await running.stop()
        return directory
    }

    @Test func recordsATriggerAndReplaysItTheSameOrWithAnotherFunction() async throws {
        let directory = try await Self.appWithRuns()
        let record = try switchyard(
            ["record", "--trigger", "onBookPushNotification", "books.jsonl"], in: directory.path)
        #expect(record.status == 0, "\(record.stderr)")
        #expect(record.stdout.hasPrefix("recorded 2 event(s) of trigger onBookPushNotification with 2 run(s)"))
        #expect(record.stderr.isEmpty)
        let lines = try String(contentsOfFile: directory.path + "/books.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.hasPrefix(#"{"format":"switchyard-trigger-recording","version":2"#) == true)

        let same = try switchyard(["replay", "books.jsonl"], in: directory.path)
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(same.stdout.hasSuffix("2 event(s), 2 same, 0 different\n"))
        #expect(same.stdout.contains("insert product.book {\"_id\":\"b1\"}: same (success, 1 message, 0 writes)"))

        let other = try switchyard(["replay", "books.jsonl", "--function", "onBookUpdated"], in: directory.path)
        #expect(other.status == 1)
        // onBookUpdated needs values this app lacks: it throws where the topic function sent its message.
        #expect(other.stdout.contains("insert product.book {\"_id\":\"b1\"}: DIFFERENT (outcome, error, messages)"))
        #expect(other.stdout.contains("    error now:  values.json has no value 'userDataDatabase'"))
        #expect(
            other.stdout.contains("    sent then: {\"message\":{\"data\":{\"bookId\":\"b1\",\"type\":\"book_added\"}"))
        #expect(other.stdout.hasSuffix("2 event(s), 0 same, 2 different\n"))

        let json = try switchyard(["replay", "books.jsonl", "--json"], in: directory.path)
        #expect(json.status == 0)
        let report = try ExtendedJSON.parseDocument(json.stdout)
        #expect(report["summary"] == ["events": 2, "same": 2, "different": 0, "unrecorded": 0])
    }

    @Test func dataThatCannotBeTakenBackIsRecordedAsItIsNowWithAWarning() async throws {
        let directory = try await Self.appWithRuns()
        let running = try await SwitchyardApp.open(
            directory: directory.path, registry: functionRegistry, options: SwitchyardApp.Options(variables: [:]))
        let shelves = running.store.database("product").collection("shelf")
        try await shelves.insertOne(["_id": "s1", "books": 2])
        try await Task.sleep(for: .milliseconds(5))
        let start = Date()
        try await Task.sleep(for: .milliseconds(5))
        try await shelves.updateOne(["_id": "s1"], ["$set": ["books": 3]])
        await running.stop()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]

        let record = try switchyard(
            ["record", "--trigger", "onBookPushNotification", "--since", formatter.string(from: start), "out.jsonl"],
            in: directory.path)
        #expect(record.status == 0, "\(record.stderr)")
        #expect(
            record.stdout.hasPrefix("recorded 0 event(s) of trigger onBookPushNotification with 0 run(s), 1 change(s)"))
        let warning =
            "product.shelf: 1 document(s) changed later could not be taken back (the collection keeps no pre-images)"
        #expect(record.stderr.hasPrefix("warning: \(warning)"))
        let file = try String(contentsOfFile: directory.path + "/out.jsonl", encoding: .utf8)
        #expect(file.split(separator: "\n").first?.contains(warning) == true)
    }

    @Test func badInputIsRefusedWithStatusTwo() async throws {
        let directory = try await Self.appWithRuns()
        let unknown = try switchyard(["record", "--trigger", "onBookPushNotificaton", "out.jsonl"], in: directory.path)
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr
                == "switchyard record: no trigger named 'onBookPushNotificaton' (did you mean 'onBookPushNotification'?)\n"
        )
        let badTime = try switchyard(
            ["record", "--trigger", "onBookPushNotification", "--since", "last tuesday", "out.jsonl"],
            in: directory.path)
        #expect(badTime.status == 2)
        #expect(badTime.stderr.hasPrefix("switchyard record: --since 'last tuesday' is not a time"))
        let backwards = try switchyard(
            ["record", "--trigger", "onBookPushNotification", "--since", "1m", "--until", "2h", "out.jsonl"],
            in: directory.path)
        #expect(backwards.status == 2)
        #expect(backwards.stderr == "switchyard record: --until must be after --since\n")
        let unwritable = try switchyard(
            ["record", "--trigger", "onBookPushNotification", "missing/out.jsonl"], in: directory.path)
        #expect(unwritable.status == 2)
        #expect(unwritable.stderr.hasPrefix("switchyard record: cannot write missing/out.jsonl"))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/out.jsonl"))

        let missing = try switchyard(["replay", "nope.jsonl"], in: directory.path)
        #expect(missing.status == 2)
        #expect(missing.stderr == "cannot read nope.jsonl: no such file\n")
        _ = try switchyard(["record", "--trigger", "onBookPushNotification", "books.jsonl"], in: directory.path)
        let function = try switchyard(["replay", "books.jsonl", "--function", "nope"], in: directory.path)
        #expect(function.status == 2)
        #expect(function.stderr == "switchyard replay: no function named 'nope' is registered\n")
    }
}
