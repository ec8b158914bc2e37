import BSON
import Switchyard
import SwitchyardTesting
import Testing

/// `deleteUserData`, run by the authentication trigger `userDeleted`: a deleted user's device tokens are not kept.
@Suite struct DeleteUserDataTests {
    @Test func aDeletedUsersCustomDataUserDocumentAndQueuedNotificationsGo() async throws {
        try await BooksAppFixture.run { app in
            let user = BooksAppFixture.user("u1")
            let other = BooksAppFixture.user("u2")
            for someone in [user, other] {
                await app.authenticate(.create, user: someone)
                try await app.awaitIdle()
                _ = try await app.call("updateFCMUserToken", .string("phone-\(someone.id)"), "add", as: someone)
            }
            try await app.collection("product.pushNotification").insertOne(
                ["_id": "n1", "userId": "u1", "token": ["phone-u1"], "processed": false])

            let triggers = await app.authenticate(.delete, user: user)
            #expect(triggers == ["userDeleted"])
            try await app.awaitIdle()
            #expect(try await app.collection("product.customUserData").findOne(["userId": "u1"]) == nil)
            #expect(try await app.collection("product.user").findOne(["_id": "u1"]) == nil)
            #expect(try await app.collection("product.pushNotification").countDocuments(["userId": "u1"]) == 0)
            let kept = try await app.collection("product.customUserData").findOne(["userId": "u2"])
            #expect(kept?["FCMToken"] == ["phone-u2"])

            try await app.fire("userDeleted", event: .authentication(.delete, user: user))
            #expect(try await app.invocations(function: "deleteUserData").map(\.outcome) == [.success, .success])
        }
    }
}
