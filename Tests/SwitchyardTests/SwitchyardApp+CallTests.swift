import BSON
import Testing

@testable import Switchyard

/// A `canEvaluate` rule on custom user data decides with the document as the store holds it at the call.
@Suite struct SwitchyardAppCallTests {
    static func role(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON {
        context.user.customData["role"] ?? .null
    }

    static func app(customUserData: Bool) async throws -> SwitchyardApp {
        var registry = FunctionRegistry()
        registry.register("forEditors", Self.role)
        registry.register("anyone", Self.role)
        let definition = AppDefinition(
            functions: ["forEditors": FunctionSettings(canEvaluate: ["%%user.custom_data.role": "editor"])],
            auth: AuthSettings(
                customUserData: customUserData
                    ? .init(database: "app", collection: "users", userIdField: "userId") : nil))
        return try await SwitchyardApp.inMemory(registry, definition: definition)
    }

    @Test func aChangedCustomDataDocumentChangesTheRulesOutcomeAtOnce() async throws {
        let app = try await Self.app(customUserData: true)
        let users = app.store.database("app").collection("users")
        let reader = FunctionUser(id: "user-1")
        _ = try await users.insertOne(["userId": "user-1", "role": "reader"])
        // Read once through the cache, as the function's own context would.
        #expect(try await app.call(function: "anyone", user: reader) == "reader")
        await #expect(throws: FunctionCallError.self) { try await app.call(function: "forEditors", user: reader) }

        _ = try await users.updateOne(["userId": "user-1"], ["$set": ["role": "editor"]])
        #expect(try await app.call(function: "forEditors", user: reader) == "editor")

        _ = try await users.updateOne(["userId": "user-1"], ["$set": ["role": "reader"]])
        await #expect(throws: FunctionCallError.self) { try await app.call(function: "forEditors", user: reader) }
        _ = try await users.deleteOne(["userId": "user-1"])
        await #expect(throws: FunctionCallError.self) { try await app.call(function: "forEditors", user: reader) }
        await app.stop()
    }

    @Test func aRuleNeverReadsCustomDataTheCallerBrings() async throws {
        // As a token issued before custom user data was turned off still carries `user_data`.
        let caller = FunctionUser(id: "user-1", customData: ["role": "editor"])
        let without = try await Self.app(customUserData: false)
        await #expect(throws: FunctionCallError.self) { try await without.call(function: "forEditors", user: caller) }
        await without.stop()

        let with = try await Self.app(customUserData: true)
        await #expect(throws: FunctionCallError.self) { try await with.call(function: "forEditors", user: caller) }
        await with.stop()
    }
}
