import BSON
import Switchyard
import SwitchyardTesting
import Testing

/// `updateFCMUserToken(token, "add" | "remove")`, called as a client would.
@Suite struct UpdateFCMUserTokenTests {
    @Test func addingStoresTheTokenOnceAndRemovingTakesItAway() async throws {
        try await BooksAppFixture.run { app in
            let user = BooksAppFixture.user("u1")
            let userData = try app.collection("product.customUserData")

            let first = try await app.call("updateFCMUserToken", "token-a", "add", as: user)
            #expect(first.documentValue?["upsertedCount"] == .int64(1))
            let again = try await app.call("updateFCMUserToken", "token-a", "add", as: user)
            #expect(again.documentValue?["matchedCount"] == .int64(1))
            #expect(again.documentValue?["modifiedCount"] == .int64(0))
            _ = try await app.call("updateFCMUserToken", "token-b", "add", as: user)
            #expect(try await userData.findOne(["userId": "u1"])?["FCMToken"] == ["token-a", "token-b"])

            let removed = try await app.call("updateFCMUserToken", "token-a", "remove", as: user)
            #expect(removed.documentValue?["modifiedCount"] == .int64(1))
            let absent = try await app.call("updateFCMUserToken", "never-added", "remove", as: user)
            #expect(absent.documentValue?["matchedCount"] == .int64(1))
            #expect(absent.documentValue?["modifiedCount"] == .int64(0))
            let document = try await userData.findOne(["userId": "u1"])
            #expect(document?["FCMToken"] == ["token-b"])
            // Favourites live on product.user, as in the tutorial.
            #expect(document?["favoriteBooks"] == nil)
        }
    }

    @Test func tokensBelongToTheCallingUserOnly() async throws {
        try await BooksAppFixture.run { app in
            _ = try await app.call("updateFCMUserToken", "token-1", "add", as: BooksAppFixture.user("u1"))
            _ = try await app.call("updateFCMUserToken", "token-2", "add", as: BooksAppFixture.user("u2"))
            let userData = try app.collection("product.customUserData")
            #expect(try await userData.findOne(["userId": "u1"])?["FCMToken"] == ["token-1"])
            #expect(try await userData.findOne(["userId": "u2"])?["FCMToken"] == ["token-2"])
        }
    }

    @Test func theSystemUserHasNoTokens() async throws {
        try await BooksAppFixture.run { app in
            await #expect(throws: FunctionCallError.self) {
                _ = try await app.call("updateFCMUserToken", "token", "add", as: .system)
            }
            let count = try await app.collection("product.customUserData").countDocuments()
            #expect(count == 0)
        }
    }

    @Test(arguments: [
        ([BSON.string("token")], "takes 2 arguments"),
        ([.int32(7), "add"], "the token (argument 1) must be a non-empty string"),
        (["", "add"], "the token (argument 1) must be a non-empty string"),
        (["token", "toggle"], "must be \"add\" or \"remove\", not \"toggle\""),
    ])
    func badArgumentsAreRefusedWithTheReason(arguments: [BSON], reason: String) async throws {
        try await BooksAppFixture.run { app in
            do {
                _ = try await app.app.call(
                    function: "updateFCMUserToken", arguments: arguments, user: BooksAppFixture.user("u1"))
                Issue.record("updateFCMUserToken accepted \(arguments)")
            } catch let error as FunctionCallError {
                #expect(error.message.contains(reason), "\(error.message)")
            }
            #expect(try await app.collection("product.customUserData").countDocuments() == 0)
        }
    }
}
