import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import TestSupport
import Testing

/// Database triggers that post their events to a webhook: the request a receiver gets (body, Standard Webhooks
/// headers and signature, checked by Python's own HMAC), retries with the same id, and `onFailure` once the last
/// attempt failed.
@Suite(.timeLimit(.minutes(1))) struct TriggerWebhookTests {
    static let secret = "whsec_" + Data("a key of thirty-two bytes or so!".utf8).base64EncodedString()

    static func definition(url: String, maxAttempts: Int) throws -> AppDefinition {
        try AppDefinition.parse(
            """
            triggers:
              - name: booksHook
                type: database
                database: product
                collection: book
                operations: [INSERT]
                ordered: false
                webhook:
                  url: \(url)/hooks/books
                  secret: hookSecret
                  headers: {X-Team: bookshelf}
                  timeout: 5s
                retry: {maxAttempts: \(maxAttempts), initialBackoff: 0ms, maxBackoff: 0ms}
                onFailure: webhookFailed
            """)
    }

    static func registry() -> FunctionRegistry {
        var registry = FunctionRegistry()
        registry.register("webhookFailed") { (arguments: [BSON], context: FunctionContext) -> BSON in
            try await context.services.mongodb().db("app").collection("failures").insertOne(
                arguments.first?.documentValue ?? [:])
            return .null
        }
        return registry
    }

    static func withApp(
        _ server: ScriptedHTTPServer, maxAttempts: Int, _ body: (SwitchyardApp) async throws -> Void
    ) async throws {
        let configuration = AppConfiguration(
            definition: try definition(url: server.url, maxAttempts: maxAttempts), environment: .development,
            values: AppValues(), webhookSecrets: ["hookSecret": Secret(name: "hookSecret", value: secret)])
        let app = try await SwitchyardApp.open(configuration: configuration, registry: registry(), store: .memory)
        try await app.start()
        do {
            try await body(app)
        } catch {
            await app.stop()
            throw error
        }
        await app.stop()
    }

    /// Standard Webhooks' signature as Python's hmac and base64 compute it, from the same secret.
    static func pythonSignature(id: String, timestamp: String, body: [UInt8]) async throws -> String {
        let script = """
            import base64, hashlib, hmac, sys
            key = base64.b64decode(sys.argv[1][len("whsec_"):])
            content = (sys.argv[2] + "." + sys.argv[3] + ".").encode() + bytes.fromhex(sys.argv[4])
            print("v1," + base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode())
            """
        let hex = body.map { String(format: "%02x", $0) }.joined()
        let run = try await FinishedProcess.run("/usr/bin/python3", ["-c", script, secret, id, timestamp, hex])
        try #require(run.status == 0, "\(run.errors)")
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func eachEventIsPostedSignedAndRetriedWithTheSameId() async throws {
        let server = try ScriptedHTTPServer()
        server.enqueue(.init(status: 500, body: Array("try again".utf8)), for: "/hooks/books")
        server.setFallback(.init(status: 204), for: "/hooks/books")
        try await Self.withApp(server, maxAttempts: 3) { app in
            try await app.store.database("product").collection("book").insertOne(["_id": 1, "title": "Emma"])
            try await app.awaitIdle()
            let requests = server.requests(to: "/hooks/books")
            try #require(requests.count == 2)
            for (attempt, request) in requests.enumerated() {
                #expect(request.method == "POST")
                #expect(request.headers["content-type"] == "application/json")
                #expect(request.headers["x-team"] == "bookshelf")
                #expect(request.headers["x-switchyard-trigger"] == "booksHook")
                #expect(request.headers["x-switchyard-attempt"] == String(attempt + 1))
                let event = try #require(request.json)
                #expect(event["operationType"] == "insert")
                #expect(event["fullDocument"] == ["_id": 1, "title": "Emma"])
                #expect(event["ns"] == ["db": "product", "coll": "book"])
                let id = try #require(request.headers["webhook-id"])
                let timestamp = try #require(request.headers["webhook-timestamp"])
                #expect(
                    request.headers["webhook-signature"]
                        == (try await Self.pythonSignature(id: id, timestamp: timestamp, body: request.body)))
            }
            // The retry is the same event: a receiver that saw the id drops it.
            #expect(requests[0].headers["webhook-id"] == requests[1].headers["webhook-id"])

            let runs = try await app.invocations.records()
            #expect(runs.map(\.function) == Array(repeating: "webhook \(server.url)/hooks/books", count: 2))
            #expect(runs.map(\.outcome) == [.failure, .success])
            #expect(runs.first?.error?.contains("answered 500: try again") == true)
            #expect(try await app.store.database("app").collection("failures").countDocuments() == 0)
        }
    }

    @Test func anEventWhoseLastAttemptFailsGoesToOnFailureAndIsDeadLettered() async throws {
        let server = try ScriptedHTTPServer()
        server.setFallback(.init(status: 503), for: "/hooks/books")
        try await Self.withApp(server, maxAttempts: 2) { app in
            try await app.store.database("product").collection("book").insertOne(["_id": 7, "title": "Persuasion"])
            try await app.awaitIdle()
            #expect(server.requests(to: "/hooks/books").count == 2)
            let failures = try await app.store.database("app").collection("failures").find().toArray()
            try #require(failures.count == 1)
            let failure = failures[0]
            #expect(failure["trigger"] == "booksHook")
            #expect(failure["attempts"]?.int64Value == 2)
            #expect(failure["error"]?.stringValue?.contains("answered 503") == true)
            #expect(failure["event"]?.documentValue?["fullDocument"] == ["_id": 7, "title": "Persuasion"])
            let letters = try await app.triggers.deadLetters(trigger: "booksHook")
            #expect(letters.count == 1)
            #expect(failure["eventId"]?.stringValue == letters.first?.eventId)
        }
    }

    @Test func aWebhookIsReadCheckedAndWrittenBack() throws {
        let text = """
            triggers:
              - name: hook
                type: database
                database: product
                operations: [INSERT, UPDATE]
                webhook:
                  url: https://hooks.example.com/books
                  secret: hookSecret
                  headers: {X-Team: bookshelf}
                  timeout: 3s
                onFailure: report
            """
        let definition = try AppDefinition.parse(text)
        let trigger = try #require(definition.triggers.first)
        #expect(
            trigger.webhook
                == TriggerWebhook(
                    url: "https://hooks.example.com/books", secretName: "hookSecret",
                    headers: [.init(name: "X-Team", value: "bookshelf")], timeout: .seconds(3)))
        #expect(trigger.onFailure == "report")
        #expect(trigger.handlerName == "webhook https://hooks.example.com/books")
        #expect(try AppDefinition.parse(try definition.yamlText()) == definition)

        let cases: [(String, String)] = [
            (
                "    function: f\n    webhook: {url: http://x.test/h}",
                "triggers.yaml:6:15: 'function' and 'webhook' both take the events in trigger 't': give one of them"
            ),
            (
                "    webhook: {url: ftp://x.test/h}",
                "'webhook.url' must be an http:// or https:// URL, not 'ftp://x.test/h'"
            ),
            ("    webhook: {url: http://x.test/h, secrt: s}", "unknown key 'secrt' (did you mean 'secret'?)"),
            (
                "    webhook: {url: http://x.test/h, headers: {Webhook-Id: x}}",
                "header 'Webhook-Id' is set by Switchyard itself"
            ),
            ("    webhook: {secret: s}", "missing required key 'url' in 'webhook'"),
        ]
        for (lines, message) in cases {
            let yaml =
                "triggers:\n  - name: t\n    type: database\n    database: d\n    operations: [INSERT]\n\(lines)\n"
            #expect {
                try AppDefinition.parse(yaml)
            } throws: { error in
                String(describing: error).contains(message)
            }
        }
        #expect {
            try AppDefinition.parse(
                "triggers:\n  - name: t\n    type: authentication\n    operation: create\n    providers: [anon-user]\n    retry: {maxAttempts: 2}\n    webhook: {url: http://x.test/h}\n"
            )
        } throws: { error in
            String(describing: error).contains("'retry' is not a key of authentication triggers")
        }
    }

    /// A scheduled trigger posts each fire time and an authentication trigger each event, signed as a change event
    /// is; an authentication event whose last attempt fails goes to `onFailure` with the event.
    @Test func scheduledAndAuthenticationTriggersPostTheirEvents() async throws {
        let server = try ScriptedHTTPServer()
        server.setFallback(.init(status: 204), for: "/hooks/tick")
        server.setFallback(.init(status: 503), for: "/hooks/users")
        let definition = try AppDefinition.parse(
            """
            triggers:
              - name: hourly
                type: scheduled
                schedule: "0 * * * *"
                webhook: {url: \(server.url)/hooks/tick, secret: hookSecret}
              - name: signUps
                type: authentication
                operation: create
                providers: [local-userpass]
                webhook: {url: \(server.url)/hooks/users}
                onFailure: webhookFailed
            """)
        #expect(try AppDefinition.parse(try definition.yamlText()) == definition)
        let clock = ManualClock(utc("2026-03-01 09:30"))
        let configuration = AppConfiguration(
            definition: definition, environment: .development, values: AppValues(),
            webhookSecrets: ["hookSecret": Secret(name: "hookSecret", value: Self.secret)])
        let app = try await SwitchyardApp.open(
            configuration: configuration, registry: Self.registry(), store: .memory,
            options: .init(
                triggers: TriggerRuntimeConfiguration(clock: clock, retry: .quick(2))))
        try await app.start()
        defer { Task { await app.stop() } }
        try await app.awaitIdle()

        clock.advance(to: utc("2026-03-01 10:00"))
        while server.requests(to: "/hooks/tick").isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        let tick = try #require(server.requests(to: "/hooks/tick").first)
        #expect(tick.headers["x-switchyard-trigger"] == "hourly")
        #expect(tick.json?["triggerName"] == "hourly")
        #expect(tick.json?["scheduledTime"] == .datetime(BSONDate(utc("2026-03-01 10:00"))))
        let id = try #require(tick.headers["webhook-id"])
        let timestamp = try #require(tick.headers["webhook-timestamp"])
        #expect(
            tick.headers["webhook-signature"]
                == (try await Self.pythonSignature(id: id, timestamp: timestamp, body: tick.body)))

        let user = FunctionUser(id: "reader-1")
        _ = await app.triggers.fire(
            authEvent: AuthEvent(operationType: .create, providers: ["local-userpass"], user: user, time: Date()))
        try await app.awaitIdle()
        let posts = server.requests(to: "/hooks/users")
        #expect(posts.count == 2)
        #expect(posts.first?.json?["operationType"] == "CREATE")
        #expect(posts.first?.json?["user"]?.documentValue?["id"] == "reader-1")
        let failures = try await app.store.database("app").collection("failures").find().toArray()
        try #require(failures.count == 1)
        #expect(failures[0]["trigger"] == "signUps")
        #expect(failures[0]["event"]?.documentValue?["operationType"] == "CREATE")
    }

    /// `onSuspend: {webhook: …}` posts the suspension, signed, once; the trigger's own events still go to its function.
    @Test func aSuspendingTriggerPostsItsSuspensionToItsWebhook() async throws {
        let server = try ScriptedHTTPServer()
        server.setFallback(.init(status: 204), for: "/hooks/alerts")
        let definition = try AppDefinition.parse(
            """
            triggers:
              - name: onBox
                type: database
                function: refuseBox
                database: app
                collection: boxes
                operations: [INSERT]
                retry: {maxAttempts: 1}
                onSuspend:
                  webhook: {url: \(server.url)/hooks/alerts, secret: hookSecret, headers: {X-Team: ops}}
            """)
        #expect(definition.triggers.first?.suspensionWebhook?.url == "\(server.url)/hooks/alerts")
        #expect(try AppDefinition.parse(try definition.yamlText()) == definition)
        var registry = FunctionRegistry()
        registry.register("refuseBox") { (_: ChangeEvent, _: FunctionContext) in
            throw FunctionCallError(code: .functionExecutionError, message: "no boxes")
        }
        let configuration = AppConfiguration(
            definition: definition, environment: .development, values: AppValues(),
            webhookSecrets: ["hookSecret": Secret(name: "hookSecret", value: Self.secret)])
        let app = try await SwitchyardApp.open(configuration: configuration, registry: registry, store: .memory)
        try await app.start()
        defer { Task { await app.stop() } }
        try await app.store.database("app").collection("boxes").insertOne(["_id": 1])
        while server.requests(to: "/hooks/alerts").isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        let post = try #require(server.requests(to: "/hooks/alerts").first)
        let body = try #require(post.json)
        #expect(body["trigger"] == "onBox")
        #expect(body["function"] == "refuseBox")
        #expect(body["reason"]?.stringValue?.contains("no boxes") == true)
        #expect(body["failedEventId"]?.stringValue != nil)
        #expect(post.headers["x-team"] == "ops")
        #expect(post.headers["x-switchyard-trigger"] == "onBox")
        let id = try #require(post.headers["webhook-id"])
        #expect(id.hasPrefix("suspension-onBox-"))
        let timestamp = try #require(post.headers["webhook-timestamp"])
        #expect(
            post.headers["webhook-signature"]
                == (try await Self.pythonSignature(id: id, timestamp: timestamp, body: post.body)))
        #expect(try await app.triggers.status(of: "onBox").state == .suspended)
        try await app.awaitIdle()
        let runs = try await app.invocations.records(trigger: "onBox")
        #expect(runs.map(\.function) == ["refuseBox", "webhook \(server.url)/hooks/alerts"])

        let errors = [
            ("onSuspend: {webhok: {url: http://x.test/h}}", "unknown key 'webhok' (did you mean 'webhook'?)"),
            ("onSuspend: {}", "'onSuspend' takes a function's name or {webhook: {url: …}}"),
            ("onSuspend: {webhook: {url: ftp://x.test/h}}", "'webhook.url' must be an http:// or https:// URL"),
        ]
        for (line, message) in errors {
            #expect {
                try AppDefinition.parse(
                    "triggers:\n  - name: t\n    type: database\n    function: f\n    database: d\n    operations: [INSERT]\n    \(line)\n"
                )
            } throws: { error in
                String(describing: error).contains(message)
            }
        }
    }

    @Test func aWebhookSecretThatIsNotSetIsAConfigurationError() throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "triggers.yaml",
            """
            triggers:
              - name: hook
                type: database
                database: product
                operations: [DELETE]
                webhook: {url: "http://127.0.0.1:1/h", secret: hookSecret}
            """)
        #expect {
            try AppConfiguration.load(directory: directory.path, variables: [:])
        } throws: { error in
            String(describing: error).contains(
                "trigger hook's webhook: secret 'hookSecret' is not set (set SWITCHYARD_SECRET_HOOKSECRET or add it to secrets.json)"
            )
        }
        let configuration = try AppConfiguration.load(
            directory: directory.path, variables: ["SWITCHYARD_SECRET_HOOKSECRET": "s3cret"])
        #expect(configuration.webhookSecrets["hookSecret"]?.exposedValue == "s3cret")
    }
}
