import BSON
import Messaging
import Switchyard
import SwitchyardTesting
import Testing

/// `sendBooksTopic`: books added to or deleted from `product.book` are announced on the `books` topic.
@Suite struct SendBooksTopicTests {
    @Test func anAddedBookIsAnnouncedWithItsCover() async throws {
        try await BooksAppFixture.run { app in
            let id = ObjectId()
            let cover = "https://books.example/covers/dune.jpg"
            try await app.collection("product.book").insertOne(
                BooksAppFixture.book(id, title: "Dune", authors: ["Frank Herbert"], thumbnail: cover))
            try await app.awaitIdle()

            let sent = app.outbox.messages(toTopic: "books")
            #expect(sent.count == 1)
            let entry = try #require(sent.first)
            #expect(entry.title == "New book added")
            #expect(entry.body == "Dune by Frank Herbert")
            #expect(entry.data == ["type": "book_added", "bookId": id.hex])
            let message = try #require(entry.message)
            #expect(message.notification?.title == "New book added")
            #expect(message.android?.collapseKey == id.hex)
            #expect(message.android?.notification?.image == cover)
            #expect(message.apns?.headers["apns-collapse-id"] == id.hex)
            #expect(message.apns?.fcmOptions?.image == cover)
            #expect(message.apns?.payload?.value(atPath: "aps.mutable-content") == .int32(1))
            #expect(message.apns?.payload?.value(atPath: "aps.thread-id") == .string(id.hex))
            #expect(app.outbox.entries.count == 1)
        }
    }

    @Test func aBookWithoutCoverSendsNoImage() async throws {
        try await BooksAppFixture.run { app in
            try await app.collection("product.book").insertOne(
                BooksAppFixture.book(title: "Untitled Notes", authors: ["A. Writer", "B. Writer"]))
            try await app.awaitIdle()

            let entry = try #require(app.outbox.messages(toTopic: "books").first)
            #expect(entry.body == "Untitled Notes by A. Writer, B. Writer")
            let message = try #require(entry.message)
            #expect(message.apns?.fcmOptions == nil)
            #expect(message.apns?.payload?.value(atPath: "aps.mutable-content") == nil)
            #expect(message.android?.notification?.image == nil)
        }
    }

    @Test func aDeletedBookIsAnnouncedWithTheTitleItHad() async throws {
        try await BooksAppFixture.run { app in
            let id = ObjectId()
            let books = try app.collection("product.book")
            try await books.insertOne(BooksAppFixture.book(id, title: "Dune", authors: ["Frank Herbert"]))
            try await app.awaitIdle()
            try await books.deleteOne(["_id": .objectId(id)])
            try await app.awaitIdle()

            let sent = app.outbox.messages(toTopic: "books")
            #expect(sent.map(\.title) == ["New book added", "Book deleted"])
            let deleted = try #require(sent.last)
            #expect(deleted.body == "Dune")
            #expect(deleted.data == ["type": "book_deleted", "bookId": id.hex])
            #expect(deleted.message?.android?.collapseKey == id.hex)
        }
    }

    @Test func aSyntheticDeleteWithoutPreImageStillAnnouncesTheDeletion() async throws {
        try await BooksAppFixture.run { app in
            try await app.fire("sendBooksTopic", event: .delete(id: "book-42"))
            let entry = try #require(app.outbox.messages(toTopic: "books").first)
            #expect(entry.title == "Book deleted")
            #expect(entry.body == "A book was removed from the library")
            #expect(entry.data == ["type": "book_deleted", "bookId": "book-42"])
        }
    }

    @Test func updatesAreNotAnnouncedOnTheTopic() async throws {
        try await BooksAppFixture.run { app in
            let id = ObjectId()
            let books = try app.collection("product.book")
            try await books.insertOne(BooksAppFixture.book(id, title: "Dune"))
            try await books.updateOne(["_id": .objectId(id)], ["$set": ["volumeInfo.title": "Dune Messiah"]])
            try await app.awaitIdle()
            #expect(app.outbox.messages(toTopic: "books").count == 1)
            #expect(try await app.invocations(trigger: "sendBooksTopic").count == 1)
        }
    }
}
