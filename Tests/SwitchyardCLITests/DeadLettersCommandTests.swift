import BSON
import Foundation
import TestSupport
import Testing

/// `switchyard dead-letters` and `switchyard redeliver ID`, on a letter the store holds: read from the store and
/// redelivered by the command itself with the app stopped, or through the admin API while `serve` runs.
@Suite(.timeLimit(.minutes(2))) struct DeadLettersCommandTests {
    private static let id = "65a1b2c3d4e5f60718293a4b"

    /// An app whose unordered trigger sends the books topic a message, holding one dead letter of it: a book's
    /// insert that failed three times.
    private func appWithADeadLetter() throws -> TemporaryDirectory {
        let app = try TemporaryDirectory()
        try app.write("values.json", #"{"booksTopic": "books"}"#)
        try app.write(
            "triggers.yaml",
            """
            triggers:
              - {name: sendBooksTopic, type: database, function: sentTopicNotification, database: product, collection: book, operations: [INSERT], ordered: false, fullDocument: true}
            """)
        try app.write("book.json", #"{"_id": 7, "volumeInfo": {"title": "Emma"}}"#)
        let generated = try switchyard(
            ["generate-event", "insert", "--ns", "product.book", "--document", "book.json", "--canonical"],
            in: app.path)
        #expect(generated.status == 0, "\(generated.stderr)")
        let event = try ExtendedJSON.parseDocument(generated.stdout)
        let eventId = try #require(event["_id"]?.documentValue?["_data"]?.stringValue)
        let letter: BSONDocument = [
            "_id": .objectId(try #require(ObjectId(hex: Self.id))), "trigger": "sendBooksTopic",
            "eventId": .string(eventId), "kind": "database", "operationType": "insert", "event": .document(event),
            "error": "FCM answered UNAVAILABLE", "attempts": .int64(3),
            "failedAt": .datetime(BSONDate(millisecondsSinceEpoch: 1_800_000_000_000)),
        ]
        try app.write("letters/local.deadLetters.json", letter.extendedJSON(mode: .canonical) + "\n")
        let imported = try switchyard(["data", "import", "letters", "--include-internal"], in: app.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        return app
    }

    @Test func listsTheLettersAndRedeliversOneWithTheAppStopped() throws {
        let app = try appWithADeadLetter()
        let listed = try switchyard(["dead-letters"], in: app.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("ID  ") == true && lines.first?.contains("ATTEMPTS") == true)
        #expect(lines.dropFirst().first?.hasPrefix("\(Self.id)  sendBooksTopic  database  ") == true)
        #expect(lines.dropFirst().first?.hasSuffix("  2027-01-15T08:00:00Z") == true, "\(lines)")
        #expect(lines.dropFirst().first?.contains("  3  ") == true)
        #expect(lines.last == "  error: FCM answered UNAVAILABLE")
        let withEvents = try switchyard(["dead-letters", "--events", "--trigger", "sendBooksTopic"], in: app.path)
        #expect(withEvents.stdout.contains(#"  event: {"_id":{"_data":"#))
        #expect(withEvents.stdout.contains(#""fullDocument":{"_id":7,"volumeInfo":{"title":"Emma"}}"#))
        let unknown = try switchyard(["dead-letters", "--trigger", "sendBookTopic"], in: app.path)
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr
                == "switchyard dead-letters: no trigger named 'sendBookTopic' (did you mean 'sendBooksTopic'?)\n")

        let redelivered = try switchyard(["redeliver", Self.id], in: app.path)
        #expect(redelivered.status == 0, "\(redelivered.stderr)")
        #expect(redelivered.stdout == "redelivered \(Self.id)\n")
        // The function ran on the original event: the topic got the book's message.
        #expect(try switchyard(["outbox"], in: app.path).stdout.contains("Emma has been added to the list"))
        #expect(try switchyard(["dead-letters"], in: app.path).stdout.split(separator: "\n").count == 1)

        let again = try switchyard(["redeliver", Self.id], in: app.path)
        #expect(again.status == 2)
        #expect(again.stderr == "switchyard redeliver: no dead letter with id \(Self.id)\n")
        let malformed = try switchyard(["redeliver", "nope"], in: app.path)
        #expect(malformed.status == 2)
        #expect(malformed.stderr.hasPrefix("switchyard redeliver: a dead letter's id is 24 hex digits, not 'nope'"))
    }

    @Test func whileServeRunsTheServerListsAndRedelivers() throws {
        let app = try appWithADeadLetter()
        let server = try RunningSwitchyard(["serve", "--port", "0"], in: app.path)
        defer { _ = server.interrupt() }
        #expect(server.lines(atLeast: 1).isEmpty == false)
        // The commands ask the server once it says where it answers.
        let endpoint = "\(app.path)/.switchyard/admin.url"
        let deadline = Date().addingTimeInterval(90)
        while !FileManager.default.fileExists(atPath: endpoint), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(FileManager.default.fileExists(atPath: endpoint), "serve printed: \(server.lines(atLeast: 0))")
        let listed = try switchyard(["dead-letters"], in: app.path)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("\(Self.id)  sendBooksTopic  database  "))
        let redelivered = try switchyard(["redeliver", Self.id], in: app.path)
        #expect(redelivered.status == 0, "\(redelivered.stderr)serve printed: \(server.lines(atLeast: 0))")
        #expect(try switchyard(["dead-letters"], in: app.path).stdout.split(separator: "\n").count == 1)
        let again = try switchyard(["redeliver", Self.id], in: app.path)
        #expect(again.status == 2)
        #expect(again.stderr == "switchyard redeliver: no dead letter with id \(Self.id)\n")
    }
}
