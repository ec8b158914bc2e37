import BSON
import DocumentStore
import Foundation
import Switchyard
import SwitchyardTesting
import Testing

/// Data brought from the tutorial: Extended JSON documents shaped like the article's examples (its custom user
/// data "User document", a `product.user` document of its schema, its `pushNotification` entry and a Google Books
/// volume), imported as `switchyard data import` does, and every flow of the tutorial run on them.
@Suite struct ArticleDocumentsTests {
    static let userId = "6268246e3e0b17265d085866"
    static let bookId = "62a0da5d860040b7938eab00"
    static let tokens = [
        "as3SiBN0kBol1ITGdBqGS:APA91bERtZt-O-jEg6jMMCjPCfYdo1wmP9RbeATAXIQKQ3rfOqj1HFmETvdqm2MJHOhx2ZXqGJydtMWjHkaAD20A8OtqYWU3oiSg17vX_gh-19b85lP9S8bvd2TRsV3DqHnJP8k-t2WV",
        "e_Os41X5ikUMk9Kdg3-GGc:APA91bFzFnmAgAhbtbqXOwD6NLnDzfyOzYbG2E-d6mYOQKZ8qVOCxd7cmYo8X3JAFTuXZ0QUXKJ1bzSzDo3E0D00z3B4WFKD7Yqq9YaGGzf_XSUcCexDTM46bm4Ave6SWzbh62L4pCbS",
    ]
    static let smallThumbnail =
        "http://books.google.com/books/content?id=aCVZAAAAMAAJ&printsec=frontcover&img=1&zoom=5&source=gbs_api"

    static let files: [String: String] = [
        "product.customUserData.json": #"""
        [{"_id": {"$oid": "626c213ece7819d62ebbfb99"}, "color": "#1AA7ECFF", "fullImage": false,
         "userId": "\#(userId)", "bookNotification": true, "FCMToken": ["\#(tokens[0])", "\#(tokens[1])"]}]
        """#,
        "product.user.json": #"""
        [{"_id": "\#(userId)", "_partition": "\#(userId)", "userName": "reader@example.com",
         "userPreferences": {"displayName": "reader@example.com"},
         "providerType": {"id": "6268246e3e0b17265d085867", "provider_type": "local-userpass"},
         "registered": true, "favoriteBooks": [{"$oid": "\#(bookId)"}]}]
        """#,
        "product.book.json": #"""
        [{"_id": {"$oid": "\#(bookId)"}, "_partition": "PUBLIC",
         "volumeInfo": {"title": "Pacific Linguistics", "authors": ["Australian National University"],
           "publishedDate": "1963", "language": "en",
           "imageLinks": {"smallThumbnail": "\#(smallThumbnail)",
             "thumbnail": "http://books.google.com/books/content?id=aCVZAAAAMAAJ&printsec=frontcover&img=1&zoom=1&source=gbs_api"}}}]
        """#,
        // The article's entry, and one like it that was never sent.
        "product.pushNotification.json": #"""
        [{"_id": {"$oid": "62a0da5d860040b7938eab87"}, "token": ["\#(tokens[1])", "\#(tokens[0])"],
          "date": {"$date": {"$numberLong": "1654708829678"}}, "processed": true,
          "changes": {"volumeInfo": {"title": "Pacific on Linguistics", "publishedDate": "1964",
            "industryIdentifiers": [{"type": "OTHER", "identifier": "UOM:39015069017963"}],
            "readingModes": {"text": false, "image": false}, "categories": ["Linguistics"],
            "imageLinks": {"smallThumbnail": "\#(smallThumbnail)"}, "language": "en"}}},
         {"_id": {"$oid": "62a0da5d860040b7938eab88"}, "token": ["\#(tokens[0])"],
          "date": {"$date": {"$numberLong": "1654708829678"}}, "processed": false,
          "changes": {"volumeInfo": {"title": "Pacific on Linguistics",
            "imageLinks": {"smallThumbnail": "\#(smallThumbnail)"}}}}]
        """#,
    ]

    @Test func everyFlowOfTheTutorialRunsOnTheArticlesDocuments() async throws {
        try await BooksAppFixture.run { app in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("article-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            for (name, text) in Self.files {
                try Data(text.utf8).write(to: directory.appendingPathComponent(name))
            }
            let summary = try await DataImport.import(from: directory.path, into: app.store)
            #expect(summary.documents == 5)
            let queue = try app.collection("product.pushNotification")
            let book = BSON.objectId(try #require(ObjectId(hex: Self.bookId)))

            // The article's unsent entry (imported, so no trigger saw it) is sent by the scheduled retry.
            try await app.fire("retryUnprocessedNotifications", event: .scheduled(at: Date()))
            let retried = app.outbox.messages(toToken: Self.tokens[0])
            #expect(retried.map(\.title) == ["Pacific on Linguistics changed"])
            #expect(retried.first?.body == "One of your favorites changed")
            #expect(retried.first?.message?.apns?.fcmOptions?.image == Self.smallThumbnail)
            #expect(retried.first?.message?.apns?.payload?.value(atPath: "aps.mutable-content") == .int32(1))
            #expect(
                try await queue.findOne(["_id": .objectId(ObjectId(hex: "62a0da5d860040b7938eab88")!)])?["processed"]
                    == true)
            #expect(app.outbox.messages(toToken: Self.tokens[1]).isEmpty, "the processed entry is not sent again")
            app.outbox.removeAll()

            // An entry like the article's, written by anyone, is sent by the insert trigger and marked processed.
            var written = try #require(
                try await queue.findOne(["processed": true, "changes.volumeInfo.publishedDate": "1964"]))
            written["_id"] = .objectId(ObjectId())
            written["processed"] = false
            try await queue.insertOne(written)
            try await app.awaitIdle()
            for token in Self.tokens {
                #expect(app.outbox.messages(toToken: token).map(\.title) == ["Pacific on Linguistics changed"])
            }
            #expect(try await queue.findOne(["_id": written["_id"] ?? .null])?["processed"] == true)
            app.outbox.removeAll()

            // The reader's favourite changes as in the article: both of their devices hear of it.
            let books = try app.collection("product.book")
            try await books.updateOne(
                ["_id": book],
                ["$set": ["volumeInfo.title": "Pacific on Linguistics", "volumeInfo.publishedDate": "1964"]])
            try await app.awaitIdle()
            let queued = try #require(try await queue.findOne(["userId": .string(Self.userId)]))
            #expect(queued["token"] == .array(Self.tokens.map(BSON.string)))
            #expect(
                queued["changes"] == ["volumeInfo.title": "Pacific on Linguistics", "volumeInfo.publishedDate": "1964"])
            #expect(queued["processed"] == true)
            for token in Self.tokens {
                let sent = app.outbox.messages(toToken: token)
                #expect(sent.map(\.title) == ["Pacific on Linguistics changed"])
                #expect(sent.first?.message?.apns?.fcmOptions?.image == Self.smallThumbnail)
            }
            app.outbox.removeAll()

            // A device is unregistered by the client; the next change reaches the other one only.
            let reader = FunctionUser(
                id: Self.userId, identities: [.init(id: "6268246e3e0b17265d085867", providerType: "local-userpass")])
            _ = try await app.call("updateFCMUserToken", .string(Self.tokens[1]), "remove", as: reader)
            try await books.updateOne(["_id": book], ["$set": ["volumeInfo.language": "eng"]])
            try await app.awaitIdle()
            #expect(app.outbox.messages(toToken: Self.tokens[0]).map(\.title) == ["Pacific on Linguistics changed"])
            #expect(app.outbox.messages(toToken: Self.tokens[1]).isEmpty)

            // The books topic hears of a book deleted and of one added.
            try await books.deleteOne(["_id": book])
            try await books.insertOne(
                BooksAppFixture.book(title: "Linguistics of the Pacific", smallThumbnail: Self.smallThumbnail))
            try await app.awaitIdle()
            let topic = app.outbox.messages(toTopic: "books")
            #expect(topic.map(\.title) == ["Book deleted", "New book added"])
            #expect(
                topic.map(\.body) == [
                    "Pacific on Linguistics has been deleted from the list",
                    "Linguistics of the Pacific has been added to the list",
                ])
            #expect(topic.last?.message?.apns?.fcmOptions?.image == Self.smallThumbnail)
        }
    }
}
