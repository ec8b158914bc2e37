import BSON
import Foundation
import Switchyard
import SwitchyardTesting
import Testing

/// `createNewUser`, run by the authentication trigger `userRegistered`: the tutorial's `product.user` document.
@Suite struct CreateNewUserTests {
    @Test func anAnonymousSignUpMakesAnUnregisteredUser() async throws {
        try await BooksAppFixture.run { app in
            let triggers = await app.authenticate(
                .create, user: BooksAppFixture.anonymousUser("u1"), provider: "anon-user")
            #expect(triggers == ["userRegistered"])
            try await app.awaitIdle()
            let user = try await app.collection("product.user").findOne(["_id": "u1"])
            #expect(
                user == [
                    "_id": "u1", "_partition": "u1", "userName": .null, "userPreferences": ["displayName": .null],
                    "providerType": ["id": "u1-anonymous", "provider_type": "anon-user"], "registered": false,
                    "favoriteBooks": [],
                ])
            let data = try await app.collection("product.customUserData").findOne(["userId": "u1"])
            #expect(data?["FCMToken"] == [])
        }
    }

    @Test func anEmailSignUpMakesARegisteredUserNamedByTheEmail() async throws {
        try await BooksAppFixture.run { app in
            let time = Date(timeIntervalSince1970: 1_700_000_000)
            await app.authenticate(.create, user: BooksAppFixture.user("u2"), time: time)
            try await app.awaitIdle()
            let user = try #require(try await app.collection("product.user").findOne(["_id": "u2"]))
            #expect(user["userName"] == "u2@example.com")
            #expect(user["userPreferences"] == ["displayName": "u2@example.com"])
            #expect(user["providerType"] == ["id": "u2-identity", "provider_type": "local-userpass"])
            #expect(user["registered"] == true)
            let data = try await app.collection("product.customUserData").findOne(["userId": "u2"])
            #expect(data?["createdAt"] == .datetime(BSONDate(millisecondsSinceEpoch: 1_700_000_000_000)))
        }
    }

    @Test func aRedeliveredSignUpKeepsFavouritesAndTokens() async throws {
        try await BooksAppFixture.run { app in
            let user = BooksAppFixture.user("u3")
            await app.authenticate(.create, user: user)
            try await app.awaitIdle()
            let book = ObjectId()
            try await app.collection("product.user").updateOne(
                ["_id": "u3"], ["$addToSet": ["favoriteBooks": .objectId(book)]])
            _ = try await app.call("updateFCMUserToken", "phone", "add", as: user)

            try await app.fire("userRegistered", event: .authentication(.create, user: user))
            #expect(
                try await app.collection("product.user").findOne(["_id": "u3"])?["favoriteBooks"] == [.objectId(book)])
            #expect(
                try await app.collection("product.customUserData").findOne(["userId": "u3"])?["FCMToken"] == ["phone"])
            #expect(try await app.invocations(function: "createNewUser").map(\.outcome) == [.success, .success])
        }
    }
}
