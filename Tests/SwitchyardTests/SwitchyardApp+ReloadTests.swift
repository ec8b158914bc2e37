import BSON
import DocumentStore
import Foundation
import Switchyard
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct SwitchyardAppReloadTests {
    static let user = FunctionUser(id: "user-1")

    static func registry() -> FunctionRegistry {
        var registry = FunctionRegistry()
        registry.register("greet") { _, context in context.values.get("greeting") ?? .null }
        registry.register("copyBook") { (event: ChangeEvent, context: FunctionContext) in
            guard let id = event.documentKey?["_id"] else { return }
            _ = try await context.services.mongodb().db("app").collection("seen")
                .updateOne(["_id": id], ["$inc": ["count": 1]], upsert: true)
        }
        return registry
    }

    static func triggers(operations: String, extra: String = "") -> String {
        """
        triggers:
          - name: copyBook
            type: database
            function: copyBook
            database: app
            collection: books
            operations: [\(operations)]
        \(extra)
        """
    }

    /// The app on an INSERT trigger and a greeting of "hello", in memory, with its triggers running.
    static func startedApp() async throws -> (TemporaryDirectory, SwitchyardApp) {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", triggers(operations: "INSERT"))
        try directory.write("values.json", #"{"greeting": "hello"}"#)
        let app = try await SwitchyardApp.open(
            directory: directory.path, registry: registry(),
            options: SwitchyardApp.Options(storage: .memory, variables: [:]))
        try await app.start()
        return (directory, app)
    }

    @Test func aReloadAppliesValuesAndTriggersWithoutLosingAnEvent() async throws {
        let (directory, app) = try await Self.startedApp()
        let books = app.store.database("app").collection("books")
        #expect(try await app.call(function: "greet", user: Self.user) == "hello")

        // Writes keep coming while the configuration changes underneath.
        let writer = Task {
            for i in 0..<60 {
                _ = try await books.insertOne(["_id": .int64(Int64(i))])
            }
        }
        try directory.write("values.json", #"{"greeting": "bonjour"}"#)
        try directory.write(
            "triggers.yaml",
            Self.triggers(
                operations: "INSERT, DELETE",
                extra: """
                      - name: copyDeletes
                        type: database
                        function: copyBook
                        database: app
                        collection: archive
                        operations: [INSERT]
                    """))
        let change = try await app.reload(directory: directory.path, variables: [:])
        try await writer.value
        try await app.awaitIdle()

        #expect(change.changedTriggers == ["copyBook"])
        #expect(change.addedTriggers == ["copyDeletes"])
        #expect(change.changedValues == ["greeting"])
        #expect(try await app.call(function: "greet", user: Self.user) == "bonjour")
        let seen = try await app.store.database("app").collection("seen").find([:]).toArray()
        #expect(seen.count == 60)
        #expect(seen.allSatisfy { $0["count"]?.int64Value == 1 })
        #expect(try await app.triggers.statuses().map(\.name).sorted() == ["copyBook", "copyDeletes"])
        await app.stop()
    }

    @Test func aConfigurationThatDoesNotFitChangesNothing() async throws {
        let (directory, app) = try await Self.startedApp()
        try directory.write("values.json", #"{"greeting": "bonjour"}"#)
        try directory.write(
            "triggers.yaml",
            """
            triggers:
              - name: copyBook
                type: database
                function: noSuchFunction
                database: app
                collection: books
                operations: [INSERT]
            """)
        await #expect(throws: ConfigurationErrors.self) {
            try await app.reload(directory: directory.path, variables: [:])
        }
        #expect(try await app.call(function: "greet", user: Self.user) == "hello")
        _ = try await app.store.database("app").collection("books").insertOne(["_id": 1])
        try await app.awaitIdle()
        #expect(try await app.store.database("app").collection("seen").countDocuments([:]) == 1)
        await app.stop()
    }
}
