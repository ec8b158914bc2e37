import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import Synchronization
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct SwitchyardAppTests {
    let user = FunctionUser(
        id: "user-1", data: ["email": "ada@example.com"],
        identities: [FunctionUser.Identity(id: "i1", providerType: "local-userpass")])

    static func echoUser(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON {
        ["user": .string(context.user.id), "system": .bool(context.runningAsSystem)]
    }

    // MARK: Opening

    @Test func opensFromADirectoryWithTheStoreUnderIt() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", "appId: books\nfunctions:\n  echo: {runAsSystem: true}\n")
        try directory.write("values.json", #"{"topic": "books"}"#)
        var registry = FunctionRegistry()
        registry.register("echo", Self.echoUser)
        let app = try await SwitchyardApp.open(
            directory: directory.path, registry: registry, options: SwitchyardApp.Options(variables: [:]))
        #expect(app.configuration.definition.appId == "books")
        #expect(try await app.call(function: "echo", user: user) == ["user": "system", "system": true])
        await app.stop()
        #expect(FileManager.default.fileExists(atPath: "\(directory.path)/.switchyard/store.sqlite"))

        // The invocation survives a restart.
        let reopened = try await SwitchyardApp.open(
            directory: directory.path, registry: registry, options: SwitchyardApp.Options(variables: [:]))
        #expect(try await reopened.invocations.records().map(\.function) == ["echo"])
        await reopened.stop()
    }

    /// Declared indexes exist once the app is open, before any function asks for them, and a reload that
    /// declares another makes it too.
    @Test func declaredIndexesAreMadeWhenTheAppOpensAndReloads() async throws {
        let directory = try TemporaryDirectory()
        let queueIndex = "indexes:\n  - {database: product, collection: queue, keys: {processed: 1, date: 1}}\n"
        try directory.write("triggers.yaml", queueIndex)
        let app = try await SwitchyardApp.open(
            directory: directory.path, registry: FunctionRegistry(), options: SwitchyardApp.Options(variables: [:]))
        let product = app.store.database("product")
        #expect(
            try await product.collection("queue").listIndexes().map { $0["name"] } == ["_id_", "processed_1_date_1"])
        try directory.write(
            "triggers.yaml", queueIndex + "  - {database: product, collection: user, keys: {email: 1}, unique: true}\n")
        try await app.reload(directory: directory.path, variables: [:])
        #expect(try await product.collection("user").listIndexes().map { $0["name"] } == ["_id_", "email_1"])
        try await product.collection("user").insertOne(["_id": 1, "email": "a"])
        await #expect(throws: StoreError.self) {
            try await product.collection("user").insertOne(["_id": 2, "email": "a"])
        }
        await app.stop()
    }

    @Test func aTriggerWhoseFunctionHasTheWrongKindFailsToLoad() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "triggers.yaml",
            """
            triggers:
              - name: books
                type: database
                function: echo
                database: app
                collection: books
                operations: [INSERT]
            """)
        var registry = FunctionRegistry()
        registry.register("echo", Self.echoUser)
        await #expect {
            try await SwitchyardApp.open(
                directory: directory.path, registry: registry,
                options: SwitchyardApp.Options(storage: .memory, variables: [:]))
        } throws: { error in
            "\(error)"
                == "\(directory.path)/triggers.yaml: trigger 'books' is a database trigger but function 'echo' is callable (a database trigger's function is (ChangeEvent, FunctionContext) async throws)"
        }
    }

    // MARK: Client calls

    @Test func privateAndUnknownFunctionsAreRefusedToClients() async throws {
        var registry = FunctionRegistry()
        registry.register("secretWork", Self.echoUser)
        registry.register("onChange") { (_: ChangeEvent, _: FunctionContext) in }
        let definition = AppDefinition(functions: ["secretWork": FunctionSettings(isPrivate: true)])
        let app = try await SwitchyardApp.inMemory(registry, definition: definition)

        await #expect(
            throws: FunctionCallError(
                code: .privateFunction,
                message: "function 'secretWork' is private: triggers and other functions may call it, clients may not")
        ) {
            try await app.call(function: "secretWork", user: user)
        }
        await #expect(
            throws: FunctionCallError(code: .functionNotFound, message: "function not found: 'nope'")
        ) {
            try await app.call(function: "nope", user: user)
        }
        await #expect(throws: FunctionCallError.self) { try await app.call(function: "onChange", user: user) }
        #expect(try await app.invocations.records().isEmpty)
        let error = FunctionCallError(code: .privateFunction, message: "m")
        #expect(error.document == ["error": "m", "error_code": "PrivateFunction"])
        #expect(error.httpStatus == 403)
        await app.stop()
    }

    @Test func canEvaluateSeesTheUserTheRequestAndTheArguments() async throws {
        var registry = FunctionRegistry()
        registry.register("forAdmins", Self.echoUser)
        registry.register("ownData", Self.echoUser)
        registry.register("fromOffice", Self.echoUser)
        let definition = AppDefinition(
            functions: [
                "forAdmins": FunctionSettings(canEvaluate: ["%%user.custom_data.role": "admin"]),
                "ownData": FunctionSettings(canEvaluate: ["%%args.0": "%%user.id"]),
                "fromOffice": FunctionSettings(
                    canEvaluate: [
                        "%%request.remoteIPAddress": ["$in": ["10.0.0.1"]], "%%user.data.email": ["$exists": true],
                    ]),
            ],
            auth: AuthSettings(
                customUserData: .init(database: "app", collection: "users", userIdField: "userId")))
        let app = try await SwitchyardApp.inMemory(registry, definition: definition)
        _ = try await app.store.database("app").collection("users").insertMany([
            ["userId": "admin-1", "role": "admin"], ["userId": "user-1", "role": "reader"],
        ])

        let denied = FunctionCallError(
            code: .permissionDenied, message: "rule not matched for function 'forAdmins' (see its canEvaluate)")
        await #expect(throws: denied) { try await app.call(function: "forAdmins", user: user) }
        #expect(
            try await app.call(function: "forAdmins", user: FunctionUser(id: "admin-1"))
                == ["user": "admin-1", "system": false])

        #expect(try await app.call(function: "ownData", arguments: ["user-1"], user: user) != .null)
        await #expect(throws: FunctionCallError.self) {
            try await app.call(function: "ownData", arguments: ["admin-1"], user: user)
        }

        #expect(
            try await app.call(function: "fromOffice", user: user, request: ["remoteIPAddress": "10.0.0.1"]) != .null)
        await #expect(throws: FunctionCallError.self) {
            try await app.call(function: "fromOffice", user: user, request: ["remoteIPAddress": "192.168.1.1"])
        }
        await app.stop()
    }

    @Test func runAsSystemDecidesTheContextsUser() async throws {
        var registry = FunctionRegistry()
        registry.register("asCaller", Self.echoUser)
        registry.register("asSystem", Self.echoUser)
        registry.register("myRole") { (_: [BSON], context: FunctionContext) in
            context.user.customData["role"] ?? "none"
        }
        let definition = AppDefinition(
            functions: ["asSystem": FunctionSettings(runAsSystem: true)],
            auth: AuthSettings(customUserData: .init(database: "app", collection: "users", userIdField: "userId")))
        let app = try await SwitchyardApp.inMemory(registry, definition: definition)
        _ = try await app.store.database("app").collection("users").insertMany([
            ["userId": "admin-1", "role": "admin"], ["userId": "user-1", "role": "reader"],
        ])
        #expect(try await app.call(function: "asCaller", user: user) == ["user": "user-1", "system": false])
        #expect(try await app.call(function: "asSystem", user: user) == ["user": "system", "system": true])
        // The caller's own custom data, whatever the client claims; never another user's.
        let claimingAdmin = FunctionUser(id: "user-1", customData: ["role": "admin"])
        #expect(try await app.call(function: "myRole", user: claimingAdmin) == "reader")
        #expect(try await app.call(function: "myRole", user: FunctionUser(id: "stranger")) == "none")
        await app.stop()
    }

    @Test func aFunctionPastItsTimeLimitFreesTheCallerAndIsCancelled() async throws {
        let cancelled = Atomic(false)
        var registry = FunctionRegistry()
        registry.register("slow") { (_: [BSON], context: FunctionContext) -> BSON in
            context.log("starting")
            do {
                try await Task.sleep(for: .seconds(600))
            } catch {
                cancelled.store(true, ordering: .releasing)
                throw error
            }
            return .null
        }
        let definition = AppDefinition(functions: ["slow": FunctionSettings(timeout: .milliseconds(50))])
        let app = try await SwitchyardApp.inMemory(registry, definition: definition)
        await #expect(
            throws: FunctionCallError(
                code: .executionTimeLimitExceeded,
                message: "function 'slow' timed out after 50ms (its time limit; see 'timeout')")
        ) {
            try await app.call(function: "slow", user: user)
        }
        let record = try #require(try await app.invocations.records().first)
        #expect(record.outcome == .timeout)
        #expect(record.logs == ["starting"])
        while !cancelled.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        await app.stop()
    }

    @Test func aFunctionIgnoringCancellationStillTimesOut() async throws {
        let release = ReleaseFlag()
        var registry = FunctionRegistry()
        registry.register("stubborn") { (_: [BSON], _: FunctionContext) -> BSON in
            // Waits in a task its cancellation does not reach: a loop of cancelled sleeps would return at once
            // and spin, holding one of the few threads every other test's tasks need.
            await Task.detached {
                while !release.isRaised { try? await Task.sleep(for: .milliseconds(5)) }
            }.value
            return .null
        }
        let definition = AppDefinition(functionTimeout: .milliseconds(50))
        let app = try await SwitchyardApp.inMemory(registry, definition: definition)
        await #expect(throws: FunctionCallError.self) { try await app.call(function: "stubborn", user: user) }
        release.raise()
        #expect(try await app.invocations.records().map(\.outcome) == [.timeout])
        await app.stop()
    }

    // MARK: Triggers

    @Test func databaseTriggersRunAsSystemAndAreRecordedPerAttempt() async throws {
        let seen = Mutex<[BSONDocument]>([])
        var registry = FunctionRegistry()
        registry.register("onBook") { (event: ChangeEvent, context: FunctionContext) in
            seen.withLock { $0.append(event.fullDocument ?? [:]) }
            context.log("\(event.operationType) as \(context.user.id)")
            guard context.runningAsSystem else { throw StoreError.badValue("not system") }
        }
        let trigger = TriggerDefinition(
            name: "books", function: "onBook",
            kind: .database(
                DatabaseTrigger(scope: .collection(database: "app", collection: "books"), operations: [.insert])))
        let app = try await SwitchyardApp.inMemory(registry, definition: AppDefinition(triggers: [trigger]))
        let books = app.store.database("app").collection("books")
        let stream = try await books.watch()
        _ = try await books.insertOne(["_id": 1, "title": "Dune"])
        var events = stream.makeAsyncIterator()
        let event = try #require(try await events.next())

        try await app.triggerHandler(
            TriggerInvocation(trigger: trigger, input: .database(event), eventId: "token-1", attempt: 2))
        #expect(seen.withLock { $0 } == [["_id": 1, "title": "Dune"]])
        let record = try #require(try await app.invocations.records(trigger: "books").first)
        #expect(record.function == "onBook")
        #expect(record.eventId == "token-1")
        #expect(record.attempt == 2)
        #expect(record.userId == "system")
        #expect(record.logs == ["insert as system"])
        await app.stop()
    }

    @Test func startedAppsDispatchWritesToTriggerFunctionsThatWriteBack() async throws {
        var registry = FunctionRegistry()
        registry.register("countBook") { (event: ChangeEvent, context: FunctionContext) in
            let counts = try context.services.mongodb().db("app").collection("counts")
            let title = event.fullDocument?["title"] ?? .null
            _ = try await counts.updateOne(
                ["_id": title], ["$inc": ["n": 1]], upsert: true)
        }
        let trigger = TriggerDefinition(
            name: "books", function: "countBook",
            kind: .database(
                DatabaseTrigger(scope: .collection(database: "app", collection: "books"), operations: [.insert])))
        let app = try await SwitchyardApp.inMemory(registry, definition: AppDefinition(triggers: [trigger]))
        try await app.start()
        let books = app.store.database("app").collection("books")
        _ = try await books.insertMany([["title": "Dune"], ["title": "Emma"], ["title": "Dune"]])
        try await app.awaitIdle()
        let counts = try await app.store.database("app").collection("counts").find([:]).toArray()
        #expect(counts == [["_id": "Dune", "n": 2], ["_id": "Emma", "n": 1]])
        #expect(try await app.invocations.records(trigger: "books").count == 3)
        let status = try #require(await app.triggers.statuses().first)
        #expect(status.processed == 3)
        await app.stop()
    }

    @Test func failingTriggerAttemptsThrowForTheDispatcher() async throws {
        var registry = FunctionRegistry()
        registry.register("nightly") { (event: ScheduledEvent, context: FunctionContext) in
            context.log(event.raw["triggerName"]?.stringValue ?? "none")
            throw StoreError.badValue("report failed")
        }
        registry.register("onLogin") { (event: AuthEvent, context: FunctionContext) in
            context.log("\(event.user.id) \(event.operationType.rawValue) \(context.user.id)")
        }
        let nightly = TriggerDefinition(
            name: "nightly", function: "nightly",
            kind: .scheduled(ScheduledTrigger(schedule: try CronSchedule("0 3 * * *"))))
        let login = TriggerDefinition(
            name: "login", function: "onLogin",
            kind: .authentication(AuthenticationTrigger(operation: .login, providers: [.anonymous])))
        let app = try await SwitchyardApp.inMemory(registry, definition: AppDefinition(triggers: [nightly, login]))
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        await #expect(
            throws: FunctionCallError(code: .functionExecutionError, message: "BadValue (2): report failed")
        ) {
            try await app.triggerHandler(
                TriggerInvocation(
                    trigger: nightly, input: .scheduled(ScheduledEvent(triggerName: "nightly", scheduledTime: time)),
                    eventId: "t", attempt: 1))
        }
        let authEvent = AuthEvent(operationType: .login, providers: ["anon-user"], user: user, time: time)
        try await app.triggerHandler(
            TriggerInvocation(trigger: login, input: .authentication(authEvent), eventId: "a", attempt: 1))
        #expect(authEvent.raw["user"]?.documentValue?["id"] == "user-1")

        let records = try await app.invocations.records()
        #expect(records.map(\.outcome) == [.failure, .success])
        #expect(records.map(\.logs) == [["nightly"], ["user-1 LOGIN system"]])
        await app.stop()
    }

    @Test func aTriggerHandedTheWrongEventIsAFailedAttempt() async throws {
        var registry = FunctionRegistry()
        registry.register("nightly") { (_: ScheduledEvent, _: FunctionContext) in }
        let trigger = TriggerDefinition(
            name: "nightly", function: "nightly",
            kind: .scheduled(ScheduledTrigger(schedule: try CronSchedule("0 3 * * *"))))
        let app = try await SwitchyardApp.inMemory(registry, definition: AppDefinition(triggers: [trigger]))
        let event = AuthEvent(operationType: .create, providers: [], user: user, time: Date())
        await #expect(throws: FunctionCallError.self) {
            try await app.triggerHandler(
                TriggerInvocation(trigger: trigger, input: .authentication(event), eventId: "x", attempt: 1))
        }
        #expect(try await app.invocations.records().map(\.outcome) == [.failure])
        await app.stop()
    }

    // MARK: Outbox

    @Test func outboxEntriesArePersistedAndFollowed() async throws {
        var registry = FunctionRegistry()
        registry.register("notify") { (arguments: [BSON], context: FunctionContext) in
            let token = arguments.first?.stringValue ?? ""
            return .string(
                try await context.services.messaging.send(PushMessage(target: .token(token), data: ["k": "v"])))
        }
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", "appId: books\n")
        let open = {
            try await SwitchyardApp.open(
                directory: directory.path, registry: registry, options: SwitchyardApp.Options(variables: [:]))
        }
        let app = try await open()
        let follower = app.outboxLog.follow()
        _ = try await app.call(function: "notify", arguments: ["device-a"], user: user)
        #expect(await follower.first()?.target == .token("device-a"))
        app.outboxMessaging?.unregisteredTokens = ["device-b"]
        await #expect(throws: FunctionCallError.self) {
            try await app.call(function: "notify", arguments: ["device-b"], user: user)
        }
        await app.stop()

        let reopened = try await open()
        let entries = try await reopened.outbox()
        #expect(entries.map(\.target) == [.token("device-a"), .token("device-b")])
        #expect(entries.map(\.isDelivered) == [true, false])
        #expect(entries.first?.payload?["data"] == ["k": "v"])
        #expect(try await reopened.outbox(limit: 1).map(\.target) == [.token("device-b")])
        await reopened.stop()
    }
}

/// A flag one test raises and a function it registered waits for, shared with that function's detached task.
private final class ReleaseFlag: Sendable {
    private let raised = Atomic(false)

    var isRaised: Bool { raised.load(ordering: .acquiring) }

    func raise() { raised.store(true, ordering: .releasing) }
}
