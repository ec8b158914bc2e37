import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

/// The example app as the tutorial's iOS client uses it, over real HTTP: log in anonymously, register with email
/// and password, store the device's FCM token with `updateFCMUserToken`, mark a book as a favourite on the user's
/// `product.user` document, and see in the outbox the notifications the triggers send when books are added,
/// changed and deleted.
@Suite(.timeLimit(.minutes(1))) struct ExampleAppClientFlowTests {
    @Test func theTutorialsFlowsOverTheClientAPI() async throws {
        try await ServedApp.withExampleApp { served in
            func find(_ collection: String, _ query: String, token: String) async throws -> BSONDocument? {
                try await served.atlas(
                    "findOne", #"{"database": "product", "collection": "\#(collection)", "query": \#(query)}"#,
                    token: token
                ).documentValue
            }

            // The client starts anonymous: an unregistered user document.
            let anonymous = try await served.loginAnonymously()
            try await served.app.awaitIdle()
            let guest = try await find("user", #"{"_id": "\#(anonymous.userId)"}"#, token: anonymous.accessToken)
            #expect(guest?["registered"] == false)
            #expect(guest?["userName"] == .null)

            // Registering with email and password makes a registered one, named by the email.
            let login = try await served.registerAndLogin("reader@example.com")
            try await served.app.awaitIdle()
            let user = try await find("user", #"{"_id": "\#(login.userId)"}"#, token: login.accessToken)
            #expect(user?["registered"] == true)
            #expect(user?["userName"] == "reader@example.com")
            #expect(user?["providerType"]?.documentValue?["provider_type"] == "local-userpass")

            let stored = try await served.call(
                "updateFCMUserToken", #"["device-token-1", "add"]"#, token: login.accessToken)
            #expect(stored.status == 200, "\(stored.text)")
            let data = try await find("customUserData", #"{"userId": "\#(login.userId)"}"#, token: login.accessToken)
            #expect(data?["FCMToken"] == ["device-token-1"])

            let bookId = ObjectId()
            let cover = "http://books.google.com/books/content?id=wrOQLV6xB-wC&zoom=5"
            _ = try await served.atlas(
                "insertOne",
                #"{"database": "product", "collection": "book", "document": {"_id": {"$oid": "\#(bookId.hex)"}, "volumeInfo": {"title": "Dune", "authors": ["Frank Herbert"], "imageLinks": {"smallThumbnail": "\#(cover)"}}}}"#,
                token: login.accessToken)
            _ = try await served.atlas(
                "updateOne",
                #"{"database": "product", "collection": "user", "query": {"_id": "\#(login.userId)"}, "update": {"$addToSet": {"favoriteBooks": {"$oid": "\#(bookId.hex)"}}}}"#,
                token: login.accessToken)
            try await served.app.awaitIdle()
            var outbox = try await served.app.outbox()
            let added = try #require(outbox.first { $0.target == .topic("books") })
            #expect(added.isDelivered)
            #expect(
                added.request.value(atPath: "message.notification") == [
                    "title": "New book added", "body": "Dune has been added to the list",
                ])

            _ = try await served.atlas(
                "updateOne",
                #"{"database": "product", "collection": "book", "query": {"_id": {"$oid": "\#(bookId.hex)"}}, "update": {"$set": {"volumeInfo.title": "Dune Messiah"}}}"#,
                token: login.accessToken)
            try await served.app.awaitIdle()
            outbox = try await served.app.outbox()
            let toDevice = outbox.filter { $0.target == .token("device-token-1") }
            #expect(toDevice.count == 1)
            let message = try #require(toDevice.first)
            #expect(message.isDelivered)
            #expect(
                message.request.value(atPath: "message.notification") == [
                    "title": "Dune Messiah changed", "body": "One of your favorites changed",
                ])
            #expect(message.request.value(atPath: "message.apns.fcm_options.image") == .string(cover))
            let entry = try await find("pushNotification", #"{"userId": "\#(login.userId)"}"#, token: login.accessToken)
            #expect(entry?["token"] == ["device-token-1"])
            #expect(entry?["changes"] == ["volumeInfo.title": "Dune Messiah"])
            #expect(entry?["processed"] == true)

            _ = try await served.atlas(
                "deleteOne",
                #"{"database": "product", "collection": "book", "query": {"_id": {"$oid": "\#(bookId.hex)"}}}"#,
                token: login.accessToken)
            try await served.app.awaitIdle()
            outbox = try await served.app.outbox()
            let deleted = try #require(outbox.last { $0.target == .topic("books") })
            #expect(
                deleted.request.value(atPath: "message.notification") == [
                    "title": "Book deleted", "body": "Dune Messiah has been deleted from the list",
                ])
        }
    }
}
