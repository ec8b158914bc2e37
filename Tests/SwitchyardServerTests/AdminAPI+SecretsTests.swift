import BSON
import DocumentStore
import Foundation
import Switchyard
import Testing

@testable import SwitchyardServer

/// A PEM-shaped secret (quotes, a backslash and newlines) never reaches the admin API in any encoding: not in a
/// suspended trigger's reason, nor in the invocation records of the function that leaked it.
@Suite struct AdminAPISecretsTests {
    static let key =
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
        + "q\"uoted\\back/slash+Z9mE4t\n-----END PRIVATE KEY-----\n"
    static let bodyLine = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
    static let base64Start = String(Data(key.utf8).base64EncodedString().prefix(40))

    /// What a function's own error type prints: its strings quoted and escaped as Swift literals.
    struct KeyRefused: Error {
        let key: String
    }

    /// One ordered trigger on `shop.orders` whose function logs the key three ways and throws it.
    static func leakyApp() async throws -> SwitchyardApp {
        var registry = FunctionRegistry()
        registry.register("leak") { (_: ChangeEvent, context: FunctionContext) in
            let key = context.values.get("fcmKey")?.stringValue ?? ""
            context.log((["key": .string(key)] as BSONDocument).extendedJSON())
            context.log("Authorization: Basic \(Data(key.utf8).base64EncodedString())")
            throw KeyRefused(key: key)
        }
        let trigger = TriggerDefinition(
            name: "leaky", function: "leak",
            kind: .database(
                DatabaseTrigger(
                    scope: .collection(database: "shop", collection: "orders"), operations: [.insert],
                    delivery: .ordered, retry: RetryPolicy(maxAttempts: 1))))
        let configuration = AppConfiguration(
            definition: AppDefinition(triggers: [trigger]), environment: .development,
            values: AppValues([("fcmKey", .secret(Secret(name: "fcm-key", value: key)))]))
        return try await SwitchyardApp.open(configuration: configuration, registry: registry, store: .memory)
    }

    static func expectNoKey(_ body: [UInt8]) {
        let text = String(decoding: body, as: UTF8.self)
        #expect(!text.contains(bodyLine))
        #expect(!text.contains(base64Start))
        #expect(text.contains(SecretScrubber.replacement))
    }

    @Test func suspensionReasonsAndInvocationsCarryNoFormOfTheKey() async throws {
        try await AdminTestServer.run(app: Self.leakyApp) { server in
            #expect(try await server.post("/databases/shop/collections/orders/documents", #"{"_id": 1}"#).status == 201)
            try await server.settle()
            let triggers = try await server.get("/triggers")
            #expect(triggers.status == 200)
            #expect(String(decoding: triggers.body, as: UTF8.self).contains("suspended"))
            Self.expectNoKey(triggers.body)
            let invocations = try await server.get("/invocations")
            #expect(invocations.status == 200)
            Self.expectNoKey(invocations.body)
        }
    }
}
