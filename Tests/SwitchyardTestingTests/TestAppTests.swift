import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import SwitchyardTesting
import Testing

/// `TestApp` with a small app of its own: a configuration in a temporary directory and hand-registered functions.
@Suite struct TestAppTests {
    /// Writes `triggers.yaml` (and `values.json`) into a fresh temporary directory and returns it.
    private func configDirectory(triggers: String, values: String = "{}") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("testapp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(triggers.utf8).write(to: directory.appendingPathComponent("triggers.yaml"))
        try Data(values.utf8).write(to: directory.appendingPathComponent("values.json"))
        return directory.path
    }

    private static let triggers = """
        triggers:
          - name: onNote
            type: database
            function: recordNote
            database: app
            collection: notes
            operations: [INSERT, UPDATE, DELETE]
            fullDocument: true
            fullDocumentBeforeChange: true
          - name: newYear
            type: scheduled
            function: tick
            schedule: "0 0 1 1 *"
          - name: onSignUp
            type: authentication
            function: welcome
            operation: create
            providers: [local-userpass]
        """

    /// Functions that leave a trace of the events they got in `app.seen`.
    private static var registry: FunctionRegistry {
        var registry = FunctionRegistry()
        registry.register("recordNote") { (event: ChangeEvent, context: FunctionContext) in
            let seen = try context.services.mongodb().db("app").collection("seen")
            try await seen.insertOne([
                "kind": .string(event.operationType.rawValue), "ns": .string(event.namespace?.description ?? ""),
                "key": event.documentKey?["_id"] ?? .null, "title": event.fullDocument?["title"] ?? .null,
                "before": event.fullDocumentBeforeChange?["title"] ?? .null,
                "updated": .document(event.updateDescription?.updatedFields ?? [:]),
            ])
            if event.fullDocument?["fail"] == true { throw TestAppError("asked to fail") }
        }
        registry.register("tick") { (event: ScheduledEvent, context: FunctionContext) in
            let seen = try context.services.mongodb().db("app").collection("seen")
            try await seen.insertOne([
                "kind": "tick",
                "at": .datetime(
                    BSONDate(millisecondsSinceEpoch: Int64(event.scheduledTime.timeIntervalSince1970 * 1000))),
            ])
        }
        registry.register("welcome") { (event: AuthEvent, context: FunctionContext) in
            let seen = try context.services.mongodb().db("app").collection("seen")
            try await seen.insertOne(["kind": "welcome", "user": .string(event.user.id)])
            _ = try await context.services.messaging.send(
                .portable(target: .topic("welcome"), title: "Hello", body: event.user.id, type: "welcome"))
        }
        registry.register("echo") { (arguments: [BSON], context: FunctionContext) in
            .array(arguments + [.string(context.user.id)])
        }
        return registry
    }

    private func run(_ body: (TestApp) async throws -> Void) async throws {
        try await TestApp.withApp(
            configDirectory: try configDirectory(triggers: Self.triggers), registry: Self.registry, body)
    }

    @Test func firesSyntheticChangeEventsAtTheTriggersCollection() async throws {
        try await run { app in
            try await app.fire("onNote", event: .insert(["_id": 1, "title": "first"]))
            try await app.fire("onNote", event: .delete(["_id": 1, "title": "first"]))
            let seen = try await app.collection("app.seen").find().toArray()
            #expect(seen.map { $0["kind"] } == ["insert", "delete"])
            #expect(seen.map { $0["key"] } == [1, 1])
            #expect(seen.map { $0["title"] } == ["first", .null])
            #expect(seen.map { $0["before"] } == [.null, "first"])
            #expect(seen.first?["ns"] == "app.notes")
            let runs = try await app.invocations(trigger: "onNote")
            #expect(runs.map(\.outcome) == [.success, .success])
            #expect(Set(runs.compactMap(\.eventId)).count == 2)
        }
    }

    @Test func syntheticUpdatesCarryWhatARealUpdateWould() async throws {
        try await run { app in
            let note: BSONDocument = ["_id": 7, "title": "draft", "tags": ["a"]]
            try await app.fire(
                "onNote", event: .update(note, with: ["$set": ["title": "final"], "$push": ["tags": "b"]]))
            let seen = try #require(try await app.collection("app.seen").findOne())
            #expect(seen["kind"] == "update")
            #expect(seen["key"] == 7)
            #expect(seen["title"] == "final")
            #expect(seen["before"] == "draft")
            #expect(seen["updated"] == ["title": "final", "tags.1": "b"])
        }
    }

    @Test func aDeleteWithoutPreImageHasNone() async throws {
        try await run { app in
            try await app.fire("onNote", event: .delete(id: 3))
            let seen = try #require(try await app.collection("app.seen").findOne())
            #expect(seen["kind"] == "delete")
            #expect(seen["key"] == 3)
            #expect(seen["before"] == .null)
        }
    }

    @Test func anImpossibleChangeIsRefused() async throws {
        try await run { app in
            await #expect(throws: TestAppError.self) {
                try await app.fire("onNote", event: .update(["_id": 1, "n": 1], with: ["$set": ["n": 1]]))
            }
        }
    }

    @Test func aFailingFunctionThrowsFromFire() async throws {
        try await run { app in
            await #expect(throws: FunctionCallError.self) {
                try await app.fire("onNote", event: .insert(["title": "bad", "fail": true]))
            }
            let runs = try await app.invocations(trigger: "onNote")
            #expect(runs.map(\.outcome) == [.failure])
        }
    }

    @Test func firesScheduledAndAuthenticationEvents() async throws {
        try await run { app in
            let time = Date(timeIntervalSince1970: 1_800_000_000)
            try await app.fire("newYear", event: .scheduled(at: time))
            try await app.fire("onSignUp", event: .authentication(.create, user: FunctionUser(id: "u1")))
            let seen = try await app.collection("app.seen").find().toArray()
            #expect(seen.first?["at"] == .datetime(BSONDate(millisecondsSinceEpoch: 1_800_000_000_000)))
            #expect(seen.last?["user"] == "u1")
            let welcome = app.outbox.messages(toTopic: "/topics/welcome")
            #expect(welcome.map(\.body) == ["u1"])
            #expect(welcome.first?.data == ["type": "welcome"])
            #expect(welcome.first?.title == "Hello")
        }
    }

    @Test(arguments: [
        ("nothing", TestEvent.scheduled(), "no trigger named 'nothing'"),
        ("onNote", TestEvent.scheduled(), "'onNote' is a database trigger"),
        ("newYear", TestEvent.insert([:]), "'newYear' is a scheduled trigger"),
        (
            "onNote", TestEvent.replace(["_id": 1], with: ["_id": 1, "a": 1]),
            "fires on INSERT, UPDATE, DELETE, not REPLACE"
        ),
        ("onSignUp", TestEvent.authentication(.login, user: FunctionUser(id: "u")), "fires on create, not login"),
        (
            "onSignUp", TestEvent.authentication(.create, user: FunctionUser(id: "u"), provider: "anon-user"),
            "not 'anon-user'"
        ),
        ("onNote", TestEvent.change(["documentKey": ["_id": 1]]), "no operationType"),
    ])
    func eventsATriggerWouldNeverGetAreRefused(trigger: String, event: TestEvent, reason: String) async throws {
        try await run { app in
            do {
                try await app.fire(trigger, event: event)
                Issue.record("fire(\(trigger)) accepted the event")
            } catch let error as TestAppError {
                #expect(error.message.contains(reason), "\(error.message)")
            }
            #expect(try await app.invocations().isEmpty)
        }
    }

    @Test func collectionsAreNamedByNamespace() async throws {
        try await run { app in
            try await app.collection("app.with.dots").insertOne(["_id": 1])
            #expect(try await app.store.database("app").collection("with.dots").countDocuments() == 1)
            for bad in ["app", ".notes", "app."] {
                #expect(throws: TestAppError.self) { try app.collection(bad) }
            }
        }
    }

    @Test func callsRunAsTheGivenUser() async throws {
        try await run { app in
            let result = try await app.call("echo", "hi", as: FunctionUser(id: "u7"))
            #expect(result == ["hi", "u7"])
            #expect(try await app.invocations(function: "echo").map(\.userId) == ["u7"])
        }
    }

    @Test func theOutboxInjectsFaultsAndForgets() async throws {
        try await run { app in
            let messaging = app.app.messaging
            app.outbox.unregisteredTokens = ["old"]
            app.outbox.failNextSends(1)
            let response = try await messaging.sendEachForMulticast(
                .portable(tokens: ["a", "b", "old"], title: "T", body: "B"))
            #expect(response.results.map { $0.error?.code } == [.unavailable, nil, .unregistered])
            #expect(app.outbox.messages(toToken: "a").isEmpty)
            #expect(app.outbox.messages(toToken: "b").map(\.title) == ["T"])
            #expect(app.outbox.failed.map(\.target) == [.token("a"), .token("old")])
            #expect(app.outbox.entries.count == 3)
            _ = try await messaging.send(.portable(target: .topic("/topics/news"), title: "N", body: "n"))
            #expect(app.outbox.messages(toTopic: "news").map(\.title) == ["N"])
            #expect(app.outbox.messages(toTopic: "/topics/news").count == 1)
            app.outbox.removeAll()
            #expect(app.outbox.entries.isEmpty)
        }
    }

    @Test func aBrokenConfigurationFailsToStart() async throws {
        let directory = try configDirectory(
            triggers: Self.triggers.replacingOccurrences(of: "function: tick", with: "function: tock"))
        await #expect(throws: ConfigurationErrors.self) {
            try await TestApp.start(configDirectory: directory, registry: Self.registry)
        }
    }
}
