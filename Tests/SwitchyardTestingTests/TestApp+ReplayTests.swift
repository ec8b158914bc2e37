import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import SwitchyardTesting
import Testing

/// `TestApp.record` and `TestApp.replay`: a recording made in one test app runs as a test in another.
@Suite struct TestAppReplayTests {
    private static let triggers = """
        triggers:
          - name: onOrder
            type: database
            function: confirm
            database: shop
            collection: orders
            operations: [INSERT]
        """

    /// `confirm` tells the order's device it was received; `confirmBriefly` says less, `reject` throws.
    private static var registry: FunctionRegistry {
        var registry = FunctionRegistry()
        registry.register("confirm") { (event: ChangeEvent, context: FunctionContext) in
            let item = event.fullDocument?["item"]?.stringValue ?? "?"
            _ = try await context.services.messaging.send(
                PushMessage(
                    target: .token("device-1"), notification: PushNotification(title: "Order received: \(item)")))
        }
        registry.register("confirmBriefly") { (_: ChangeEvent, context: FunctionContext) in
            _ = try await context.services.messaging.send(
                PushMessage(target: .token("device-1"), notification: PushNotification(title: "Order received")))
        }
        registry.register("reject") { (_: ChangeEvent, _: FunctionContext) in throw TestAppError("out of stock") }
        return registry
    }

    private func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(Self.triggers.utf8).write(to: directory.appendingPathComponent("triggers.yaml"))
        return directory
    }

    @Test func aRecordingReplaysAsATest() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("orders.jsonl")
        try await TestApp.withApp(configDirectory: directory.path, registry: Self.registry) { app in
            try await app.collection("shop.orders").insertOne(["_id": 1, "item": "tea"])
            try await app.collection("shop.orders").insertOne(["_id": 2, "item": "cake"])
            try await app.record(trigger: "onOrder", to: file)
        }
        try await TestApp.withApp(configDirectory: directory.path, registry: Self.registry) { app in
            let report = try await app.replay(file)
            #expect(report.differences.isEmpty)
            #expect(report.same.count == 2)

            let brief = try await app.replay(file, function: "confirmBriefly")
            #expect(brief.differences.count == 2)
            #expect(brief.differences.first?.differences == [.messages])

            let rejected = try await app.replay(file.path, function: "reject")
            #expect(rejected.differences.first?.now.outcome == .failure)
            #expect(rejected.differences.first?.now.error?.contains("out of stock") == true)
            // The app's own data is left alone: the replay ran against a scratch copy.
            #expect(try await app.collection("shop.orders").countDocuments() == 0)
        }
    }

    @Test func unknownTriggersFunctionsAndFilesAreTestAppErrors() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestApp.withApp(configDirectory: directory.path, registry: Self.registry) { app in
            await #expect(throws: TestAppError("no trigger named 'onOrders' (the app's triggers: 'onOrder')")) {
                try await app.record(trigger: "onOrders", to: directory.appendingPathComponent("x.jsonl"))
            }
            let file = directory.appendingPathComponent("orders.jsonl")
            try await app.record(trigger: "onOrder", to: file)
            await #expect(throws: TestAppError("no function named 'confirmed' is registered (did you mean 'confirm'?)"))
            {
                try await app.replay(file, function: "confirmed")
            }
            await #expect(throws: TestAppError("cannot read \(directory.path)/none.jsonl: no such file")) {
                try await app.replay(directory.appendingPathComponent("none.jsonl"))
            }
        }
    }
}
