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
/// changed and deleted. Books are the system's to write (here the store itself, as the admin API or a system
/// function writes them), and the app's data access rules keep each user to their own documents.
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
            let books = served.app.store.database("product").collection("book")
            try await books.insertOne([
                "_id": .objectId(bookId),
                "volumeInfo": [
                    "title": "Dune", "authors": ["Frank Herbert"], "imageLinks": ["smallThumbnail": .string(cover)],
                ],
            ])
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

            try await books.updateOne(["_id": .objectId(bookId)], ["$set": ["volumeInfo.title": "Dune Messiah"]])
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
            let entry = try await served.app.store.database("product").collection("pushNotification").findOne([
                "userId": .string(login.userId)
            ])
            #expect(entry?["token"] == ["device-token-1"])
            #expect(entry?["changes"] == ["volumeInfo.title": "Dune Messiah"])
            #expect(entry?["processed"] == true)

            try await books.deleteOne(["_id": .objectId(bookId)])
            try await served.app.awaitIdle()
            outbox = try await served.app.outbox()
            let deleted = try #require(outbox.last { $0.target == .topic("books") })
            #expect(
                deleted.request.value(atPath: "message.notification") == [
                    "title": "Book deleted", "body": "Dune Messiah has been deleted from the list",
                ])
        }
    }

    @Test func theAppsRulesKeepEachUserToTheirOwnDocumentsAndBooksToTheSystem() async throws {
        try await ServedApp.withExampleApp { served in
            let reader = try await served.registerAndLogin("reader@example.com")
            let other = try await served.registerAndLogin("other@example.com")
            try await served.app.awaitIdle()
            #expect(
                try await served.call("updateFCMUserToken", #"["reader-token", "add"]"#, token: reader.accessToken)
                    .status == 200)
            let bookId = ObjectId()
            try await served.app.store.database("product").collection("book").insertOne([
                "_id": .objectId(bookId), "volumeInfo": ["title": "Dune"],
            ])
            func atlas(_ action: String, _ collection: String, _ rest: String, token: String) async throws
                -> HTTPResponse
            {
                try await served.call(
                    action, #"[{"database": "product", "collection": "\#(collection)", \#(rest)}]"#,
                    service: "mongodb-atlas", token: token)
            }

            // Everyone reads the books; no client writes them.
            let found = try await atlas("find", "book", #""query": {}"#, token: other.accessToken)
            #expect(found.status == 200)
            #expect(found.json?.arrayValue?.count == 1)
            let retitled = try await atlas(
                "updateOne", "book", #""query": {}, "update": {"$set": {"volumeInfo.title": "Mine"}}"#,
                token: other.accessToken)
            #expect(retitled.status == 403)
            #expect(
                try await atlas("insertOne", "book", #""document": {"title": "x"}"#, token: other.accessToken).status
                    == 403)
            #expect(try await atlas("deleteOne", "book", #""query": {}"#, token: other.accessToken).status == 403)

            // Another user sees neither the reader's user document nor their device tokens, and cannot change them.
            let userQuery = #""query": {"_id": "\#(reader.userId)"}"#
            #expect(try await atlas("findOne", "user", userQuery, token: other.accessToken).text == "null")
            #expect(
                try await atlas("findOne", "user", userQuery, token: reader.accessToken).json?.documentValue?["_id"]
                    == .string(reader.userId))
            let tokens = #""query": {"userId": "\#(reader.userId)"}"#
            #expect(try await atlas("find", "customUserData", tokens, token: other.accessToken).text == "[]")
            let stolen = try await atlas(
                "updateOne", "customUserData", tokens + #", "update": {"$set": {"FCMToken": ["thief"]}}"#,
                token: other.accessToken)
            #expect(stolen.json?.documentValue?["matchedCount"] == .int32(0))
            let favourite = try await atlas(
                "updateOne", "user",
                userQuery + #", "update": {"$addToSet": {"favoriteBooks": {"$oid": "\#(bookId.hex)"}}}"#,
                token: other.accessToken)
            #expect(favourite.json?.documentValue?["matchedCount"] == .int32(0))
            let data = try await served.app.store.database("product").collection("customUserData").findOne([
                "userId": .string(reader.userId)
            ])
            #expect(data?["FCMToken"] == ["reader-token"])

            // The notification queue is the triggers' alone.
            let queue = try await atlas("find", "pushNotification", #""query": {}"#, token: reader.accessToken)
            #expect(queue.status == 403)
            #expect(queue.errorCode == "NoMatchingRuleFound")
        }
    }
}
