import BSON
import DocumentStore
import Foundation
import Testing

@testable import Switchyard

@Suite struct TriggerReplayTests {
    /// A recording of `announce` over two matching books, one of them updated later.
    static func recording() async throws -> (TriggerRecording, AppConfiguration) {
        let app = try await ReplayFixture.app()
        try await app.start()
        let books = app.store.database("shop").collection("books")
        try await books.insertOne(["_id": 1, "title": "Dune", "genre": "sf"])
        try await books.insertOne(["_id": 2, "title": "Emma", "genre": "novel"])
        try await books.updateOne(["_id": 1], ["$set": ["title": "Dune Messiah"]])
        try await app.awaitIdle()
        let recording = try await ReplayFixture.recorder(app).record(ReplayFixture.trigger)
        let configuration = app.configuration
        await app.stop()
        return (recording, configuration)
    }

    @Test func anUnchangedFunctionDoesTheSame() async throws {
        let (recording, configuration) = try await Self.recording()
        let report = try await TriggerReplay(configuration: configuration, registry: ReplayFixture.registry()).run(
            recording)
        #expect(report.events.count == 2)
        #expect(report.differences.isEmpty)
        #expect(report.same.count == 2)
        #expect(report.summary == "2 event(s), 2 same, 0 different")
        // The update's lookup saw the document as it was after the update, and the run writes what it wrote then.
        #expect(
            report.events.map { $0.now.messages.first?["message"]?.documentValue?["data"] } == [
                .document(["title": "Dune"]), .document(["title": "Dune Messiah"]),
            ])
        #expect(report.events.first?.now.writes?.first?["ns"] == ["db": "shop", "coll": "announced"])
        #expect(report.events.first?.now.logs == ["announcing Dune"])
    }

    @Test func anotherFunctionSendingOtherMessagesDiffers() async throws {
        let (recording, configuration) = try await Self.recording()
        let report = try await TriggerReplay(configuration: configuration, registry: ReplayFixture.registry()).run(
            recording, function: "announceLoudly")
        #expect(report.differences.count == 2)
        // It writes nothing where `announce` wrote the book to `announced`.
        #expect(report.differences.first?.differences == [.messages, .writes])
        #expect(report.events.first?.now.messages.first?["message"]?.documentValue?["data"] == ["title": "DUNE"])
        #expect(report.lines.last == "2 event(s), 0 same, 2 different")
        #expect(report.lines.contains { $0.hasSuffix(": DIFFERENT (messages, writes)") })
    }

    @Test func aFunctionThatThrowsDiffersInOutcomeAndError() async throws {
        let (recording, configuration) = try await Self.recording()
        let report = try await TriggerReplay(configuration: configuration, registry: ReplayFixture.registry()).run(
            recording, function: "refuse")
        let first = try #require(report.events.first)
        #expect(first.differences == [.outcome, .error, .messages, .writes])
        #expect(first.then?.outcome == .success)
        #expect(first.now.outcome == .failure)
        #expect(first.now.error?.contains("refused") == true)
        #expect(report.document["summary"]?.documentValue?["different"] == .int64(2))
    }

    @Test func aFunctionWritingElsewhereDiffersInWritesThenAndNow() async throws {
        let (recording, configuration) = try await Self.recording()
        let report = try await TriggerReplay(configuration: configuration, registry: ReplayFixture.registry()).run(
            recording, function: "announceElsewhere")
        let first = try #require(report.events.first)
        #expect(first.differences == [.writes])
        #expect(first.then?.writes?.map { $0["ns"] } == [["db": "shop", "coll": "announced"]])
        #expect(first.now.writes?.map { $0["ns"] } == [["db": "shop", "coll": "announcements"]])
        #expect(report.lines.contains { $0.hasSuffix(": DIFFERENT (writes)") })
        #expect(report.lines.contains { $0.hasPrefix("    wrote then: insert shop.announced ") && $0.contains("Dune") })
        #expect(report.lines.contains { $0.hasPrefix("    wrote now:  insert shop.announcements ") })
        #expect(report.document["events"]?.arrayValue?.first?.documentValue?["differences"] == ["writes"])
    }

    @Test func writesWithoutARecordedSideAreNotCompared() async throws {
        var (recording, configuration) = try await Self.recording()
        // As a recording of runs made before the data directory tagged their writes.
        for index in recording.changes.indices {
            for run in recording.changes[index].runs.indices { recording.changes[index].runs[run].writes = nil }
        }
        let report = try await TriggerReplay(configuration: configuration, registry: ReplayFixture.registry()).run(
            recording, function: "announceElsewhere")
        #expect(report.differences.isEmpty)
        #expect(report.events.first?.now.writes?.count == 1)
    }

    @Test func anEventWithoutARecordedRunIsReportedApart() async throws {
        var (recording, configuration) = try await Self.recording()
        // As when the invocation log had pruned the runs.
        for index in recording.changes.indices { recording.changes[index].runs = [] }
        let report = try await TriggerReplay(configuration: configuration, registry: ReplayFixture.registry()).run(
            recording, function: "refuse")
        #expect(report.differences.isEmpty)
        #expect(report.unrecorded.count == 2)
        #expect(report.summary == "2 event(s), 0 same, 0 different, 2 without a recorded run")
        #expect(report.lines.contains { $0.hasSuffix(": no recorded run; now failure, 0 messages, 0 writes") })
    }

    @Test func anUnknownFunctionOrTriggerIsRefused() async throws {
        let (recording, configuration) = try await Self.recording()
        let replay = TriggerReplay(configuration: configuration, registry: ReplayFixture.registry())
        #expect(throws: TriggerReplay.Failure("no function named 'anounce' is registered (did you mean 'announce'?)")) {
            try replay.definition(for: recording, function: "anounce")
        }
        #expect(
            throws: TriggerReplay.Failure(
                "function 'ping' is callable: a database trigger's function takes a change event")
        ) {
            try replay.definition(for: recording, function: "ping")
        }
        var other = recording
        other.trigger = "announced"
        #expect(
            throws: TriggerReplay.Failure(
                "the recording is of trigger 'announced', which this app does not have (did you mean 'announce'?)")
        ) {
            try replay.definition(for: other)
        }
    }
}
