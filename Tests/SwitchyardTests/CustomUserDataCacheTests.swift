import BSON
import DocumentStore
import Foundation
import Switchyard
import Testing

/// Custom user data is kept between calls, and a change, by whatever writes it, is seen by the next call.
@Suite struct CustomUserDataCacheTests {
    static func app() async throws -> SwitchyardApp {
        var registry = FunctionRegistry()
        registry.register("myPlan") { (_: [BSON], context: FunctionContext) in
            context.user.customData["plan"] ?? "none"
        }
        registry.register("upgrade") { (_: [BSON], context: FunctionContext) in
            try await context.services.mongodb().db("app").collection("users").updateOne(
                ["userId": .string(context.user.id)], ["$set": ["plan": "pro"]])
            return .null
        }
        // `upgrade` runs as the user: the rules let each user write their own custom user data.
        let definition = try AppDefinition.parse(
            """
            auth:
              customUserData: {database: app, collection: users, userIdField: userId}
            rules:
              collections:
                - database: app
                  collection: users
                  roles:
                    - {name: own, apply_when: {}, document_filters: {write: {userId: "%%user.id"}}, read: true, write: true}
            """)
        return try await SwitchyardApp.inMemory(registry, definition: definition)
    }

    @Test func aChangeIsSeenByTheNextCall() async throws {
        let app = try await Self.app()
        let user = FunctionUser(id: "user-1")
        let users = app.store.database("app").collection("users")
        #expect(try await app.call(function: "myPlan", user: user) == "none")
        try await users.insertOne(["userId": "user-1", "plan": "free"])
        #expect(try await app.call(function: "myPlan", user: user) == "free")
        #expect(try await app.customUserData(forUser: "user-1")["plan"] == "free")
        // Written by a function, through its context.
        _ = try await app.call(function: "upgrade", user: user)
        #expect(try await app.call(function: "myPlan", user: user) == "pro")
        #expect(try await app.customUserData(forUser: "user-1")["plan"] == "pro")
        try await users.drop()
        #expect(try await app.call(function: "myPlan", user: user) == "none")
        await app.stop()
    }

    @Test func aReloadNamingAnotherCollectionReadsThatOne() async throws {
        let app = try await Self.app()
        let user = FunctionUser(id: "user-1")
        try await app.store.database("app").collection("users").insertOne(["userId": "user-1", "plan": "free"])
        try await app.store.database("app").collection("members").insertOne(["member": "user-1", "plan": "gold"])
        #expect(try await app.call(function: "myPlan", user: user) == "free")
        var definition = app.configuration.definition
        definition.auth.customUserData = .init(database: "app", collection: "members", userIdField: "member")
        _ = try await app.reload(
            AppConfiguration(definition: definition, environment: .development, values: AppValues()))
        #expect(try await app.call(function: "myPlan", user: user) == "gold")
        await app.stop()
    }
}
