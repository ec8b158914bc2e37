import BSON
import Foundation
import Switchyard
import SwitchyardTesting
import Testing

/// `createUserData`: the authentication triggers `createUserData` (sign-up) and `ensureUserDataOnLogin`.
@Suite struct CreateUserDataTests {
    @Test func signingUpCreatesTheUsersDocument() async throws {
        try await BooksAppFixture.run { app in
            let time = Date(timeIntervalSince1970: 1_700_000_000)
            let triggers = await app.authenticate(.create, user: BooksAppFixture.user("u1"), time: time)
            #expect(triggers == ["createUserData"])
            try await app.awaitIdle()
            let documents = try await app.collection("product.customUserData").find().toArray()
            #expect(documents.count == 1)
            let document = try #require(documents.first)
            #expect(document["userId"] == "u1")
            #expect(document["FCMToken"] == [])
            #expect(document["favoriteBooks"] == [])
            #expect(document["createdAt"] == .datetime(BSONDate(millisecondsSinceEpoch: 1_700_000_000_000)))
        }
    }

    @Test func loggingInKeepsTokensAndFavourites() async throws {
        try await BooksAppFixture.run { app in
            let user = BooksAppFixture.user("u1")
            await app.authenticate(.create, user: user)
            try await app.awaitIdle()
            _ = try await app.call("updateFCMUserToken", "token-a", "add", as: user)
            let userData = try app.collection("product.customUserData")
            let book = ObjectId()
            try await userData.updateOne(["userId": "u1"], ["$push": ["favoriteBooks": .objectId(book)]])
            let before = try await userData.findOne(["userId": "u1"])

            #expect(await app.authenticate(.login, user: user, provider: "anon-user") == ["ensureUserDataOnLogin"])
            try await app.awaitIdle()
            #expect(try await userData.findOne(["userId": "u1"]) == before)
            #expect(try await userData.countDocuments() == 1)
            #expect(try await app.invocations(function: "createUserData").map(\.outcome) == [.success, .success])
        }
    }

    @Test func aFirstLoginWithoutSignUpCreatesTheDocumentToo() async throws {
        try await BooksAppFixture.run { app in
            try await app.fire(
                "ensureUserDataOnLogin", event: .authentication(.login, user: BooksAppFixture.user("u9")))
            let document = try await app.collection("product.customUserData").findOne(["userId": "u9"])
            #expect(document?["FCMToken"] == [])
        }
    }
}
