import BSON
import DocumentStore
import Foundation
import TestSupport
import Testing

@testable import Switchyard

@Suite struct InvocationLogTests {
    let user = FunctionUser(id: "user-1")

    /// The records `local.invocations` holds, read from its pages.
    static func storedRecords(_ store: DocumentStore) async throws -> [BSONDocument] {
        let pages = try await store.database(InvocationLog.database).collection(InvocationLog.collection).find()
            .toArray()
        return pages.flatMap { ($0["records"]?.arrayValue ?? []).compactMap(\.documentValue) }
    }

    @Test func recordsArePersistedInLocalInvocations() async throws {
        var registry = FunctionRegistry()
        registry.register("ok") { (_: [BSON], context: FunctionContext) in
            context.log("fine")
            return true
        }
        registry.register("fails") { (_: [BSON], _: FunctionContext) -> BSON in
            throw StoreError.badValue("no such book")
        }
        let app = try await SwitchyardApp.inMemory(registry)
        let before = Date(timeIntervalSinceNow: -1)
        _ = try await app.call(function: "ok", user: user)
        await #expect(throws: FunctionCallError.self) { try await app.call(function: "fails", user: user) }

        // Runs do not wait for their records; a flush does.
        await app.invocations.flush()
        #expect(try await Self.storedRecords(app.store).count == 2)
        let records = try await app.invocations.records()
        #expect(records.map(\.function) == ["ok", "fails"])
        #expect(records.map(\.outcome) == [.success, .failure])
        #expect(records[0].logs == ["fine"])
        #expect(records[0].error == nil)
        #expect(records[1].error == "BadValue (2): no such book")
        #expect(records.allSatisfy { $0.trigger == nil && $0.eventId == nil && $0.attempt == 1 })
        #expect(records.allSatisfy { $0.userId == "user-1" && $0.start >= before && $0.duration >= .zero })
        #expect(try await app.invocations.records(function: "fails").map(\.outcome) == [.failure])
        #expect(try await app.invocations.records(limit: 1).map(\.function) == ["fails"])
        #expect(try await app.invocations.records(since: Date(timeIntervalSinceNow: 60)).isEmpty)
        #expect(try await app.invocations.records(trigger: "someTrigger").isEmpty)
        #expect(try await app.invocations.records(outcome: .success).map(\.function) == ["ok"])
        #expect(try await app.invocations.records(outcome: .timeout).isEmpty)
        #expect(try await app.invocations.records(until: before).isEmpty)
        #expect(try await app.invocations.records(since: before, until: Date(timeIntervalSinceNow: 60)).count == 2)
        await app.stop()
    }

    @Test func followersSeeNewRecords() async throws {
        var registry = FunctionRegistry()
        registry.register("ok") { (_: [BSON], _: FunctionContext) in .null }
        let app = try await SwitchyardApp.inMemory(registry)
        let follower = app.invocations.follow()
        _ = try await app.call(function: "ok", user: user)
        #expect(await follower.first()?.function == "ok")
        await app.stop()
    }

    @Test func stoppingTheAppEndsFollowers() async throws {
        let app = try await SwitchyardApp.inMemory(FunctionRegistry())
        let follower = app.invocations.follow()
        await app.stop()
        #expect(await follower.first() == nil)
    }

    @Test func onlyTheNewestRecordsAreKept() async throws {
        var registry = FunctionRegistry()
        registry.register("ok") { (arguments: [BSON], context: FunctionContext) in
            context.log("\(arguments.first?.int64Value ?? -1)")
            return .null
        }
        let app = try await SwitchyardApp.inMemory(
            registry, options: SwitchyardApp.Options(invocationRetention: 5))
        for index in 0..<250 { _ = try await app.call(function: "ok", arguments: [.int64(Int64(index))], user: user) }
        // Pages of a tenth of the retention, at least one record: with 5 kept, exactly 5 remain.
        await app.invocations.flush()
        #expect(try await Self.storedRecords(app.store).count == 5)
        let latest = try await app.invocations.records(limit: 5)
        #expect(latest.map { $0.logs } == (245..<250).map { ["\($0)"] })
        await app.stop()
    }

    @Test func secretValuesNeverReachErrorsOrLogs() async throws {
        var registry = FunctionRegistry()
        registry.register("leaky") { (_: [BSON], context: FunctionContext) -> BSON in
            let key = context.values.get("apiKey")?.stringValue ?? ""
            context.log("calling with key \(key) and token \(context.values.get("token")?.stringValue ?? "")")
            throw StoreError.badValue("request with \(key) was refused")
        }
        let values = AppValues([
            ("apiKey", .secret(Secret(name: "api", value: "AIzaSECRET123"))),
            ("token", .secret(Secret(name: "token", value: "tok-42"))),
        ])
        let app = try await SwitchyardApp.inMemory(registry, values: values)
        await #expect(
            throws: FunctionCallError(
                code: .functionExecutionError, message: "BadValue (2): request with <secret> was refused")
        ) {
            try await app.call(function: "leaky", user: user)
        }
        let record = try #require(try await app.invocations.records().first)
        #expect(record.error == "BadValue (2): request with <secret> was refused")
        #expect(record.logs == ["calling with key <secret> and token <secret>"])
        let stored = try await app.store.database("local").collection("invocations").find().toArray()
        #expect(!stored.isEmpty)
        let text = stored.map { $0.extendedJSON() }.joined()
        #expect(!text.contains("AIzaSECRET123") && !text.contains("tok-42"))
        await app.stop()
    }

    @Test func recordsOfConcurrentRunsAreAllReadableAtOnceAndSurviveAStop() async throws {
        var registry = FunctionRegistry()
        registry.register("ok") { (arguments: [BSON], _: FunctionContext) in arguments.first ?? .null }
        let directory = try TemporaryDirectory()
        let configuration = AppConfiguration(
            definition: AppDefinition(), environment: .development, values: AppValues())
        let app = try await SwitchyardApp.open(
            configuration: configuration, registry: registry, store: .sqlite(directory: directory.path))
        let runs = 400
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<runs {
                group.addTask {
                    _ = try await app.call(function: "ok", arguments: [.int64(Int64(index))], user: self.user)
                    // The run is over: its record is there for the next read, without a flush.
                    let mine = try await app.invocations.records(function: "ok", limit: runs)
                    #expect(mine.count > 0)
                }
            }
            try await group.waitForAll()
        }
        #expect(try await app.invocations.records(limit: runs + 1).count == runs)
        await app.stop()

        // A clean stop wrote every record: the reopened app reads them all, each once.
        let reopened = try await SwitchyardApp.open(
            configuration: configuration, registry: registry, store: .sqlite(directory: directory.path))
        #expect(try await Self.storedRecords(reopened.store).count == runs)
        await reopened.stop()
    }

    @Test func aRecordIsReadableAsSoonAsItsRunReturns() async throws {
        var registry = FunctionRegistry()
        registry.register("ok") { (arguments: [BSON], _: FunctionContext) in arguments.first ?? .null }
        let app = try await SwitchyardApp.inMemory(registry)
        for index in 0..<50 {
            _ = try await app.call(function: "ok", arguments: [.int64(Int64(index))], user: user)
            #expect(try await app.invocations.records(limit: 100).count == index + 1)
        }
        await app.stop()
    }

    @Test func aLargeLogKeepsItsRetentionAndAtMostAPageMore() async throws {
        let store = try await DocumentStore.open(StoreConfiguration(engine: .memory))
        let log = InvocationLog(store: store, retention: 2_000)
        try await log.prepare()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var most = 0
        for index in 0..<5_000 {
            await log.record(
                InvocationRecord(
                    function: "f\(index)", userId: "u", start: start.addingTimeInterval(Double(index)),
                    duration: .zero, outcome: .success))
            if index % 50 == 49 {
                await log.flush()
                let stored = try await Self.storedRecords(store).count
                #expect(stored >= min(index + 1, 2_000))
                most = max(most, stored)
            }
        }
        // Pages of at most a tenth of the retention: never more than that beyond it, and always the newest.
        #expect(InvocationPages.capacity(retention: 2_000) == 200)
        #expect(most < 2_000 + 200)
        let kept = try await log.records(limit: 5_000)
        #expect((2_000..<2_200).contains(kept.count))
        #expect(kept.map(\.function) == (5_000 - kept.count..<5_000).map { "f\($0)" })
        await store.close()
    }

    @Test func aRecordsDocumentHoldsItsFieldsInOrder() {
        let id = ObjectId()
        let start = Date(timeIntervalSince1970: 1_700_000_000.125)
        let call = InvocationRecord(
            id: id, function: "ping", userId: "u", start: start, duration: .microseconds(1_500), outcome: .success)
        #expect(
            call.document == [
                "_id": .objectId(id), "function": "ping", "attempt": .int64(1), "userId": "u",
                "start": .datetime(BSONDate(start)), "durationMs": .double(1.5), "outcome": "success", "logs": [],
            ])
        let attempt = InvocationRecord(
            id: id, trigger: "t", function: "f", eventId: "e", attempt: 2, userId: "system", start: start,
            duration: .zero, outcome: .failure, error: "bad", logs: ["a"])
        #expect(
            attempt.document == [
                "_id": .objectId(id), "trigger": "t", "function": "f", "eventId": "e", "attempt": .int64(2),
                "userId": "system", "start": .datetime(BSONDate(start)), "durationMs": .double(0),
                "outcome": "failure", "error": "bad", "logs": ["a"],
            ])
    }

    @Test func recordsRoundTripThroughTheirDocuments() throws {
        let record = InvocationRecord(
            trigger: "books", function: "onBookChange", eventId: "42", attempt: 3, userId: "system",
            start: Date(timeIntervalSince1970: 1_700_000_000.125), duration: .milliseconds(12.5), outcome: .timeout,
            error: "too slow", logs: ["a", "b"])
        #expect(try InvocationRecord(document: record.document) == record)
        // What the store gets: the document's bytes, written directly.
        #expect(record.encoded.id == record.id)
        #expect(record.encoded.bytes == (try record.document.bsonBytes))
        let call = InvocationRecord(
            function: "ping ✓", userId: "anon", start: Date(), duration: .nanoseconds(1), outcome: .success)
        #expect(call.encoded.bytes == (try call.document.bsonBytes))
        var broken = record.document
        broken["outcome"] = "exploded"
        #expect(throws: InvocationLogError.self) { try InvocationRecord(document: broken) }
    }
}
