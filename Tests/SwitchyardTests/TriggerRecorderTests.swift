import BSON
import DocumentStore
import Foundation
import TestSupport
import Testing

@testable import DocumentStore
@testable import Switchyard

@Suite struct TriggerRecorderTests {
    /// Inserts a book, waits for the trigger, and returns when it finished.
    static func insert(_ app: SwitchyardApp, _ document: BSONDocument) async throws {
        try await app.store.database("shop").collection("books").insertOne(document)
        try await app.awaitIdle()
    }

    @Test func takesOnlyTheEventsTheTriggersRouteTakesWithTheirRunsAndMessages() async throws {
        let app = try await ReplayFixture.app()
        defer { Task { await app.stop() } }
        try await app.start()
        try await Self.insert(app, ["_id": 1, "title": "Dune", "genre": "sf"])
        try await Self.insert(app, ["_id": 2, "title": "Emma", "genre": "novel"])  // not matched
        try await app.store.database("shop").collection("books").deleteOne(["_id": 1])  // not an operation it takes
        try await app.store.database("shop").collection("other").insertOne(["_id": 3, "genre": "sf"])  // elsewhere
        try await app.awaitIdle()

        let recording = try await ReplayFixture.recorder(app).record(ReplayFixture.trigger)
        let delivered = recording.changes.compactMap(\.delivered)
        #expect(delivered.map(\.operationType) == [.insert])
        #expect(delivered.first?.documentKey == ["_id": 1])
        let taken = try #require(recording.changes.first { $0.delivered != nil })
        #expect(taken.runs.map(\.outcome) == [.success])
        #expect(taken.runs.first?.logs == ["announcing Dune"])
        #expect(
            taken.runs.first?.messages.map { $0["message"]?.documentValue?["data"] }
                == [.document(["title": "Dune"])])
        // Every change of the window is kept, so a replay sees the data as the function did.
        #expect(recording.changes.count > delivered.count)
    }

    @Test func theSnapshotIsTheDataAsOfTheWindowsStart() async throws {
        let app = try await ReplayFixture.app()
        defer { Task { await app.stop() } }
        try await app.store.database("shop").createCollection(
            "stock", options: CreateCollectionOptions(changeStreamPreAndPostImages: true))
        let stock = app.store.database("shop").collection("stock")
        try await stock.insertOne(["_id": "dune", "count": 5])
        try await stock.insertOne(["_id": "emma", "count": 1])
        try await Task.sleep(for: .milliseconds(5))
        let start = Date()
        try await Task.sleep(for: .milliseconds(5))
        try await stock.updateOne(["_id": "dune"], ["$set": ["count": 4]])
        try await stock.deleteOne(["_id": "emma"])
        try await stock.insertOne(["_id": "ubik", "count": 2])

        let recording = try await ReplayFixture.recorder(app).record(ReplayFixture.trigger, since: start)
        let snapshot = try #require(recording.snapshot.first { $0.namespace.collection == "stock" })
        #expect(Set(snapshot.documents) == [["_id": "dune", "count": 5], ["_id": "emma", "count": 1]])
        #expect(recording.notes.isEmpty)
        #expect(recording.changes.map(\.change.operationType) == [.update, .delete, .insert])
    }

    @Test func aCollectionWithoutPreImagesIsRecordedAsItIsNowWithANote() async throws {
        let app = try await ReplayFixture.app()
        defer { Task { await app.stop() } }
        let stock = app.store.database("shop").collection("stock")
        try await stock.insertOne(["_id": "dune", "count": 5])
        try await Task.sleep(for: .milliseconds(5))
        let start = Date()
        try await Task.sleep(for: .milliseconds(5))
        try await stock.updateOne(["_id": "dune"], ["$set": ["count": 4]])
        // Made in the window, so not in the snapshot at all: its update needs no pre-image.
        try await stock.insertOne(["_id": "ubik", "count": 2])
        try await stock.updateOne(["_id": "ubik"], ["$set": ["count": 1]])

        let recording = try await ReplayFixture.recorder(app).record(ReplayFixture.trigger, since: start)
        #expect(
            recording.snapshot.first { $0.namespace.collection == "stock" }?.documents == [["_id": "dune", "count": 4]])
        #expect(recording.notes.count == 1)
        #expect(
            recording.notes.first?.hasPrefix("shop.stock: 1 document(s) changed later could not be taken back") == true)
    }

    @Test func theFileReadsBackAsItWasWritten() async throws {
        let app = try await ReplayFixture.app()
        defer { Task { await app.stop() } }
        try await app.start()
        try await Self.insert(app, ["_id": 1, "title": "Dune", "genre": "sf"])
        let recording = try await ReplayFixture.recorder(app).record(ReplayFixture.trigger)
        let directory = try TemporaryDirectory()
        let path = directory.path + "/books.jsonl"
        try recording.write(to: path)
        let read = try TriggerRecording(contentsOf: path)
        #expect(read.trigger == "announce")
        #expect(read.function == "announce")
        #expect(read.changes.map(\.change) == recording.changes.map(\.change))
        #expect(read.changes.map(\.delivered) == recording.changes.map(\.delivered))
        #expect(read.changes.map(\.runs) == recording.changes.map(\.runs))
        let header = try ExtendedJSON.parseDocument(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self).split(separator: "\n")[0]
                .utf8)
        #expect(header["format"] == "switchyard-trigger-recording")
        #expect(header["version"] == .int32(2))
    }

    @Test func aRunsWritesAreRecordedWithWhatTheyWrote() async throws {
        let app = try await ReplayFixture.app()
        defer { Task { await app.stop() } }
        try await app.start()
        try await Self.insert(app, ["_id": 1, "title": "Dune", "genre": "sf"])
        // Someone else's write to the same collection is not the run's.
        try await app.store.database("shop").collection("announced").insertOne(["title": "by hand"])
        let recording = try await ReplayFixture.recorder(app).record(ReplayFixture.trigger)
        let run = try #require(recording.changes.first { $0.delivered != nil }?.runs.first)
        let writes = try #require(run.writes)
        #expect(writes.count == 1)
        #expect(writes.first?["operationType"] == "insert")
        #expect(writes.first?["ns"] == ["db": "shop", "coll": "announced"])
        #expect(writes.first?["fullDocument"]?.documentValue?["title"] == "Dune")
        #expect(
            writes.first?["documentKey"]?.documentValue?["_id"] == writes.first?["fullDocument"]?.documentValue?["_id"])
        #expect(recording.notes.isEmpty)

        let directory = try TemporaryDirectory()
        try recording.write(to: directory.path + "/books.jsonl")
        let read = try TriggerRecording(contentsOf: directory.path + "/books.jsonl")
        #expect(read.changes.compactMap { $0.runs.first?.writes } == [writes])
    }

    @Test func anOldDataDirectoryOpensAndRecordsWritesFromThenOn() async throws {
        let directory = try TemporaryDirectory()
        let old = try await ReplayFixture.app(store: .sqlite(directory: directory.path))
        try await old.start()
        try await Self.insert(old, ["_id": 1, "title": "Dune", "genre": "sf"])
        await old.stop()
        // The store's layout before the change log kept which run made a change.
        let connection = try SQLiteConnection(path: directory.path + "/store.sqlite", create: false)
        try connection.execute(
            "DROP INDEX changes_origin; ALTER TABLE changes DROP COLUMN origin; PRAGMA user_version = 1;")
        connection.close()

        let app = try await ReplayFixture.app(store: .sqlite(directory: directory.path))
        defer { Task { await app.stop() } }
        try await app.start()
        try await Self.insert(app, ["_id": 2, "title": "Hyperion", "genre": "sf"])
        let recording = try await ReplayFixture.recorder(app).record(ReplayFixture.trigger)
        let runs = recording.changes.filter { $0.delivered != nil }.map { $0.runs.first }
        #expect(runs.count == 2)
        #expect(runs.first??.writes == nil)
        #expect(runs.last??.writes?.first?["fullDocument"]?.documentValue?["title"] == "Hyperion")
        #expect(recording.notes.contains { $0.contains("have no writes recorded") })
    }

    @Test func aVersionOneFileReadsAsRunsWithUnknownWrites() throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "old.jsonl",
            #"{"format": "switchyard-trigger-recording", "version": 1, "trigger": "announce", "function": "announce"}"#
                + "\n"
                + #"{"change": {"_id": {"_data": "0000000000000001"}, "operationType": "insert", "ns": {"db": "shop", "coll": "books"}, "documentKey": {"_id": 1}, "fullDocument": {"_id": 1}}, "event": {"_id": {"_data": "0000000000000001"}, "operationType": "insert"}, "runs": [{"invocation": {"$oid": "65f000000000000000000001"}, "attempt": 1, "start": {"$date": "2026-01-01T00:00:00Z"}, "durationMs": 1.0, "outcome": "success", "logs": [], "messages": []}]}"#
                + "\n")
        let read = try TriggerRecording(contentsOf: directory.path + "/old.jsonl")
        #expect(read.changes.first?.runs.count == 1)
        #expect(read.changes.first?.runs.first?.writes == nil)
    }

    @Test func aFileThatIsNotARecordingSaysWhereAndWhy() throws {
        let directory = try TemporaryDirectory()
        func problem(_ contents: String) throws -> String? {
            try directory.write("file.jsonl", contents)
            do {
                _ = try TriggerRecording(contentsOf: directory.path + "/file.jsonl")
                return nil
            } catch {
                return error.description.replacingOccurrences(of: directory.path + "/", with: "")
            }
        }
        let header = #"{"format": "switchyard-trigger-recording", "version": 1, "trigger": "t", "function": "f"}"#
        #expect(try problem(header + "\n{oops\n") == #"file.jsonl:2:2: expected '"' to start a key, or '}'"#)
        #expect(
            try problem(#"{"a": 1}"#)
                == #"file.jsonl:1:1: not a trigger recording: the first line has no format "switchyard-trigger-recording""#
        )
        #expect(
            try problem(#"{"format": "switchyard-trigger-recording", "version": 9}"#)
                == "file.jsonl:1:1: recording format version 9 is not supported (this switchyard reads versions 1 to 2)"
        )
        #expect(try problem(header + "\n{\"x\": 1}\n") == "file.jsonl:2:1: expected a snapshot or a change line")
        #expect(try problem(header + "\n") == nil)
        #expect(try problem("") == "file.jsonl:1:1: empty file: not a trigger recording (switchyard record writes one)")
    }

    @Test func onlyDatabaseTriggersWithAFunctionCanBeRecorded() async throws {
        let app = try await ReplayFixture.app()
        defer { Task { await app.stop() } }
        let scheduled = TriggerDefinition(
            name: "nightly", function: "ping",
            kind: .scheduled(ScheduledTrigger(schedule: try CronSchedule("0 2 * * *"))))
        do {
            _ = try await ReplayFixture.recorder(app).record(scheduled)
            Issue.record("recorded a scheduled trigger")
        } catch {
            #expect(error.isBadInput)
            #expect(error.description.contains("only database triggers can be recorded"))
        }
    }

    @Test func relativeAndISOTimesAreRead() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(RecordingTime.parse("15m", now: now) == now.addingTimeInterval(-900))
        #expect(RecordingTime.parse("2026-05-01T12:00:00Z") == Date(timeIntervalSince1970: 1_777_636_800))
        #expect(RecordingTime.parse("yesterday") == nil)
    }
}
