import BSON
import DocumentStore
import Messaging
import Switchyard
import Synchronization
import TestSupport
import Testing

/// What a function sees through its context, checked by calling functions that report it.
@Suite struct FunctionContextTests {
    let user = FunctionUser(id: "user-1", data: ["email": "ada@example.com"])

    @Test func valuesResolveSecretsAndEnvironmentHasItsTag() async throws {
        var registry = FunctionRegistry()
        registry.register("read") { (_: [BSON], context: FunctionContext) in
            [
                "plain": context.values.get("bookTopic") ?? "missing",
                "secret": context.values.get("fcmKey") ?? "missing",
                "unknown": context.values.get("nope") ?? "missing",
                "tag": .string(context.environment.tag),
                "environmentValue": context.environment.values.get("bookTopic") ?? "missing",
                "printedHidesSecrets": .bool(
                    "\(context.values)".contains("fcmKey: <secret>") && !"\(context.values)".contains("s3cr3t")),
            ]
        }
        let values = AppValues([
            ("bookTopic", .plain("books")), ("fcmKey", .secret(Secret(name: "fcm", value: "s3cr3t-key"))),
        ])
        let app = try await SwitchyardApp.inMemory(registry, values: values, environment: .qa)
        let result = try await app.call(function: "read", user: user)
        #expect(
            result == [
                "plain": "books", "secret": "s3cr3t-key", "unknown": "missing", "tag": "qa",
                "environmentValue": "books", "printedHidesSecrets": true,
            ])
        await app.stop()
    }

    @Test func mongodbServiceIsTheStore() async throws {
        var registry = FunctionRegistry()
        registry.register("addBook") { (arguments: [BSON], context: FunctionContext) in
            let books = try context.services.mongodb().db("app").collection("books")
            _ = try await books.insertOne(["title": arguments.first ?? .null])
            return .int64(Int64(try await books.countDocuments()))
        }
        // The function runs as the user, so the app's rules must let users write books.
        let definition = try AppDefinition.parse(
            """
            rules:
              collections:
                - {database: app, collection: books, roles: [{name: all, apply_when: {}, write: true, insert: true}]}
            """)
        let app = try await SwitchyardApp.inMemory(registry, definition: definition)
        #expect(try await app.call(function: "addBook", arguments: ["Dune"], user: user) == .int64(1))
        #expect(try await app.store.database("app").collection("books").findOne()?["title"] == "Dune")
        await app.stop()
    }

    @Test func unknownMongoDBServiceNamesFailClearly() async throws {
        var registry = FunctionRegistry()
        registry.register("other") { (_: [BSON], context: FunctionContext) in
            _ = try context.services.mongodb("mongodb-atlass")
            return .null
        }
        let app = try await SwitchyardApp.inMemory(registry)
        await #expect(
            throws: FunctionCallError(
                code: .functionExecutionError,
                message:
                    "no MongoDB service named 'mongodb-atlass' (did you mean 'mongodb-atlas'?) (this app has 'mongodb-atlas')"
            )
        ) {
            try await app.call(function: "other", user: user)
        }
        await app.stop()
    }

    @Test func executeRunsCallablesAsTheSameUserIncludingPrivateOnes() async throws {
        var registry = FunctionRegistry()
        registry.register("outer") { (arguments: [BSON], context: FunctionContext) in
            context.log("outer")
            return try await context.functions.execute("inner", arguments.first ?? .null, "second")
        }
        registry.register("inner") { (arguments: [BSON], context: FunctionContext) in
            context.log("inner")
            return ["arguments": .array(arguments), "user": .string(context.user.id)]
        }
        let definition = AppDefinition(functions: ["inner": FunctionSettings(isPrivate: true)])
        let app = try await SwitchyardApp.inMemory(registry, definition: definition)
        let result = try await app.call(function: "outer", arguments: ["first"], user: user)
        #expect(result == ["arguments": ["first", "second"], "user": "user-1"])
        // One invocation, holding both functions' lines.
        let records = try await app.invocations.records()
        #expect(records.map(\.function) == ["outer"])
        #expect(records.first?.logs == ["outer", "inner"])
        await app.stop()
    }

    @Test func executeRefusesUnknownAndTriggerFunctions() async throws {
        var registry = FunctionRegistry()
        registry.register("call") { (arguments: [BSON], context: FunctionContext) in
            try await context.functions.execute(arguments.first?.stringValue ?? "")
        }
        registry.register("onChange") { (_: ChangeEvent, _: FunctionContext) in }
        let app = try await SwitchyardApp.inMemory(registry)
        await #expect(
            throws: FunctionCallError(
                code: .functionExecutionError, message: "FunctionNotFound: function not found: 'nope'")
        ) {
            try await app.call(function: "call", arguments: ["nope"], user: user)
        }
        await #expect(
            throws: FunctionCallError(
                code: .functionExecutionError,
                message:
                    "FunctionNotFound: function not found: 'onChange' is a database trigger function, which only its trigger runs"
            )
        ) {
            try await app.call(function: "call", arguments: ["onChange"], user: user)
        }
        await app.stop()
    }

    @Test func executeStopsEndlessRecursion() async throws {
        var registry = FunctionRegistry()
        let calls = Atomic(0)
        registry.register("forever") { (_: [BSON], context: FunctionContext) in
            calls.add(1, ordering: .relaxed)
            return try await context.functions.execute("forever")
        }
        let app = try await SwitchyardApp.inMemory(registry)
        await #expect(
            throws: FunctionCallError(
                code: .functionExecutionError,
                message:
                    "CallDepthExceeded: functions.execute('forever'): more than 32 nested function calls (does a function call itself without end?)"
            )
        ) {
            try await app.call(function: "forever", user: user)
        }
        #expect(calls.load(ordering: .relaxed) == FunctionContext.maximumCallDepth + 1)
        await app.stop()
    }

    @Test func logsAreBoundedPerExecution() async throws {
        var registry = FunctionRegistry()
        registry.register("chatty") { (arguments: [BSON], context: FunctionContext) in
            for index in 0..<(arguments.first?.int64Value ?? 0) { context.log("line \(index)") }
            return .null
        }
        registry.register("wide") { (_: [BSON], context: FunctionContext) in
            let line = String(repeating: "x", count: 1000)
            for _ in 0..<100 { context.log(line) }
            return .null
        }
        let app = try await SwitchyardApp.inMemory(registry)
        _ = try await app.call(function: "chatty", arguments: [600], user: user)
        _ = try await app.call(function: "chatty", arguments: [3], user: user)
        _ = try await app.call(function: "wide", user: user)
        let records = try await app.invocations.records()
        #expect(records.count == 3)
        let chatty = records[0].logs
        #expect(chatty.count == 513)
        #expect(chatty[511] == "line 511")
        #expect(chatty.last == "… 88 more lines dropped")
        #expect(records[1].logs == ["line 0", "line 1", "line 2"])
        let wide = records[2].logs
        #expect(wide.count == 66)
        #expect(wide.dropLast().allSatisfy { $0.count == 1000 })
        #expect(wide.last == "… 35 more lines dropped")
        await app.stop()
    }

    @Test func httpServiceSendsBSONBodiesAsJSON() async throws {
        let server = try TestHTTPServer()
        var registry = FunctionRegistry()
        registry.register("post") { (arguments: [BSON], context: FunctionContext) in
            let url = arguments.first?.stringValue ?? ""
            let posted = try await context.services.http.post(url + "/echo", body: ["title": "Dune", "year": 1965])
            let fetched = try await context.services.http.get(url + "/echo?status=201")
            let deleted = try await context.services.http.delete(url + "/echo")
            return [
                "posted": posted.json ?? .null, "fetchedStatus": .int64(Int64(fetched.status)),
                "deletedMethod": deleted.json?.documentValue?["method"] ?? .null,
            ]
        }
        let app = try await SwitchyardApp.inMemory(registry)
        let result = try await app.call(function: "post", arguments: [.string(server.url)], user: user)
        let posted = result.documentValue?["posted"]?.documentValue
        #expect(posted?["method"] == "POST")
        #expect(posted?["body"] == #"{"title":"Dune","year":1965}"#)
        #expect(posted?["headers"]?.documentValue?["content-type"] == "application/json")
        #expect(result.documentValue?["fetchedStatus"] == .int64(201))
        #expect(result.documentValue?["deletedMethod"] == "DELETE")
        await app.stop()
    }

    @Test func messagingSendsThroughTheOutbox() async throws {
        var registry = FunctionRegistry()
        registry.register("notify") { (_: [BSON], context: FunctionContext) in
            let message = PushMessage(
                target: .topic("books"), notification: PushNotification(title: "New book", body: "Dune"))
            return .string(try await context.services.messaging.send(message))
        }
        let app = try await SwitchyardApp.inMemory(registry, definition: AppDefinition(appId: "books-app"))
        let name = try await app.call(function: "notify", user: user)
        #expect(name.stringValue?.hasPrefix("projects/books-app/messages/") == true)
        let entries = try await app.outbox()
        #expect(entries.map { .string($0.name) } == [name])
        #expect(entries.first?.target == .topic("books"))
        await app.stop()
    }
}
