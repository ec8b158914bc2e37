import BSON
import DocumentStore
import Messaging

@testable import Switchyard

/// An app whose trigger `announce` sends one message per book inserted or updated in `shop.books` whose
/// `genre` is `sf` (its `match`), and registered alternatives to replay it with.
enum ReplayFixture {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "refused" }
    }

    static func announce(_ event: ChangeEvent, _ context: FunctionContext) async throws {
        let title = event.fullDocument?["title"]?.stringValue ?? "?"
        context.log("announcing \(title)")
        _ = try await context.services.messaging.send(
            PushMessage(target: .topic("books"), data: ["title": title]))
        try await context.services.mongodb().db("shop").collection("announced").insertOne(["title": .string(title)])
    }

    static func registry() -> FunctionRegistry {
        var registry = FunctionRegistry()
        registry.register("announce", announce)
        registry.register("announceLoudly") { (event: ChangeEvent, context: FunctionContext) async throws in
            let title = event.fullDocument?["title"]?.stringValue ?? "?"
            _ = try await context.services.messaging.send(
                PushMessage(target: .topic("books"), data: ["title": title.uppercased()]))
        }
        registry.register("announceElsewhere") { (event: ChangeEvent, context: FunctionContext) async throws in
            let title = event.fullDocument?["title"]?.stringValue ?? "?"
            context.log("announcing \(title)")
            _ = try await context.services.messaging.send(PushMessage(target: .topic("books"), data: ["title": title]))
            try await context.services.mongodb().db("shop").collection("announcements").insertOne([
                "title": .string(title)
            ])
        }
        registry.register("refuse") { (_: ChangeEvent, _: FunctionContext) async throws in throw Refused() }
        registry.register("ping") { (arguments: [BSON], _: FunctionContext) async throws -> BSON in .array(arguments) }
        return registry
    }

    static let trigger = TriggerDefinition(
        name: "announce", function: "announce",
        kind: .database(
            DatabaseTrigger(
                scope: .collection(database: "shop", collection: "books"), operations: [.insert, .update],
                fullDocument: true, match: ["fullDocument.genre": "sf"])))

    /// The app on `store` (default: in memory).
    static func app(store: StoreConfiguration = .memory) async throws -> SwitchyardApp {
        let configuration = AppConfiguration(
            definition: AppDefinition(triggers: [trigger]), environment: .development, values: AppValues())
        return try await SwitchyardApp.open(configuration: configuration, registry: registry(), store: store)
    }

    static func recorder(_ app: SwitchyardApp) -> TriggerRecorder {
        TriggerRecorder(store: app.store, invocations: app.invocations, outbox: app.outboxLog)
    }
}
