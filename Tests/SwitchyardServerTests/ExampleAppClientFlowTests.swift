import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

/// The example app as its iOS client uses it, over real HTTP: log in, store the device's FCM token with
/// `updateFCMUserToken`, mark a book as a favourite, and see the push notification the triggers send when the
/// book changes land in the outbox.
@Suite(.timeLimit(.minutes(1))) struct ExampleAppClientFlowTests {
    @Test func loginCallUpdateFCMUserTokenTriggerAndOutbox() async throws {
        try await ServedApp.withExampleApp { served in
            let login = try await served.loginAnonymously()
            try await served.app.awaitIdle()
            // The authentication trigger made the user's custom data.
            let userData = served.app.store.database("product").collection("customUserData")
            #expect(try await userData.findOne(["userId": .string(login.userId)]) != nil)

            let stored = try await served.call(
                "updateFCMUserToken", #"["device-token-1", "add"]"#, token: login.accessToken)
            #expect(stored.status == 200)
            #expect(try ExtendedJSON.parseValue(stored.text).documentValue?["matchedCount"]?.int64Value == 1)

            func atlas(_ action: String, _ argument: String) async throws -> HTTPResponse {
                try await served.call(action, "[\(argument)]", service: "mongodb-atlas", token: login.accessToken)
            }
            let bookId = ObjectId()
            let inserted = try await atlas(
                "insertOne",
                #"{"database": "product", "collection": "book", "document": {"_id": {"$oid": "\#(bookId.hex)"}, "volumeInfo": {"title": "Dune", "authors": ["Frank Herbert"]}}}"#
            )
            #expect(inserted.status == 200)
            let favourite = try await atlas(
                "updateOne",
                #"{"database": "product", "collection": "customUserData", "query": {"userId": "\#(login.userId)"}, "update": {"$addToSet": {"favoriteBooks": {"$oid": "\#(bookId.hex)"}}}}"#
            )
            #expect(favourite.status == 200)
            try await served.app.awaitIdle()

            let changed = try await atlas(
                "updateOne",
                #"{"database": "product", "collection": "book", "query": {"_id": {"$oid": "\#(bookId.hex)"}}, "update": {"$set": {"volumeInfo.pageCount": 412}}}"#
            )
            #expect(changed.status == 200)
            try await served.app.awaitIdle()

            let outbox = try await served.app.outbox()
            #expect(outbox.contains { $0.target == .topic("books") && $0.isDelivered })
            let toDevice = outbox.filter { $0.target == .token("device-token-1") }
            #expect(toDevice.count == 1)
            #expect(toDevice.first?.isDelivered == true)
            #expect(toDevice.first?.request.extendedJSON(mode: .relaxed).contains("Dune") == true)
        }
    }
}
