import BSON
import Foundation
import Switchyard
import SwitchyardTesting
import Testing

/// `updateUser`, run by the authentication trigger `updateUser` on every login.
@Suite struct UpdateUserTests {
    /// The tutorial's client starts anonymous and registers with email and password later.
    @Test func anEmailLoginRegistersAnAnonymousUserAndKeepsTheirFavourites() async throws {
        try await BooksAppFixture.run { app in
            let anonymous = BooksAppFixture.anonymousUser("u1")
            await app.authenticate(.create, user: anonymous, provider: "anon-user")
            try await app.awaitIdle()
            let book = ObjectId()
            let users = try app.collection("product.user")
            try await users.updateOne(["_id": "u1"], ["$addToSet": ["favoriteBooks": .objectId(book)]])

            var linked = anonymous
            linked.data = ["email": "reader@example.com"]
            linked.identities.append(.init(id: "u1-password", providerType: "local-userpass"))
            #expect(await app.authenticate(.login, user: linked) == ["updateUser"])
            try await app.awaitIdle()
            let user = try #require(try await users.findOne(["_id": "u1"]))
            #expect(user["registered"] == true)
            #expect(user["userName"] == "reader@example.com")
            #expect(user["userPreferences"] == ["displayName": "reader@example.com"])
            #expect(user["providerType"] == ["id": "u1-password", "provider_type": "local-userpass"])
            #expect(user["favoriteBooks"] == [.objectId(book)])
        }
    }

    @Test func anAnonymousLoginLeavesARegisteredUserRegistered() async throws {
        try await BooksAppFixture.run { app in
            await app.authenticate(.create, user: BooksAppFixture.user("u2"))
            try await app.awaitIdle()
            let before = try await app.collection("product.user").findOne(["_id": "u2"])
            try await app.fire(
                "updateUser", event: .authentication(.login, user: BooksAppFixture.anonymousUser("u2")))
            #expect(try await app.collection("product.user").findOne(["_id": "u2"]) == before)
        }
    }

    @Test func aFirstLoginWithoutSignUpMakesTheUserDocuments() async throws {
        try await BooksAppFixture.run { app in
            try await app.fire("updateUser", event: .authentication(.login, user: BooksAppFixture.user("u9")))
            let user = try await app.collection("product.user").findOne(["_id": "u9"])
            #expect(user?["registered"] == true)
            #expect(user?["_partition"] == "u9")
            #expect(user?["favoriteBooks"] == [])
            let data = try await app.collection("product.customUserData").findOne(["userId": "u9"])
            #expect(data?["FCMToken"] == [])
        }
    }
}
