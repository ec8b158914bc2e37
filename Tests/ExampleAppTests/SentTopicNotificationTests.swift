import BSON
import Messaging
import Switchyard
import SwitchyardTesting
import Testing

/// `sentTopicNotification`, run by `onBookPushNotification`: books added to or deleted from `product.book` are
/// announced on the `books` topic in the tutorial's words.
@Suite(.coverageReport) struct SentTopicNotificationTests {
    @Test func anAddedBookIsAnnouncedWithItsSmallThumbnail() async throws {
        try await BooksAppFixture.run { app in
            let id = ObjectId()
            let cover = "http://books.google.com/books/content?id=aCVZAAAAMAAJ&printsec=frontcover&img=1&zoom=5"
            try await app.collection("product.book").insertOne(
                BooksAppFixture.book(id, title: "Dune", authors: ["Frank Herbert"], smallThumbnail: cover))
            try await app.awaitIdle()

            let sent = app.outbox.messages(toTopic: "books")
            #expect(sent.count == 1)
            let entry = try #require(sent.first)
            #expect(entry.title == "New book added")
            #expect(entry.body == "Dune has been added to the list")
            #expect(entry.data == ["type": "book_added", "bookId": id.hex])
            let message = try #require(entry.message)
            #expect(message.apns?.fcmOptions?.image == cover)
            #expect(message.apns?.payload?.value(atPath: "aps.mutable-content") == .int32(1))
            #expect(message.android?.notification?.image == cover)
            #expect(message.android?.collapseKey == id.hex)
            #expect(message.apns?.headers["apns-collapse-id"] == id.hex)
            #expect(message.apns?.payload?.value(atPath: "aps.thread-id") == .string(id.hex))
            #expect(app.outbox.entries.count == 1)
        }
    }

    @Test func aBookWithoutCoverSendsNoImage() async throws {
        try await BooksAppFixture.run { app in
            try await app.collection("product.book").insertOne(
                BooksAppFixture.book(title: "Untitled Notes", authors: ["A. Writer"]))
            try await app.awaitIdle()

            let entry = try #require(app.outbox.messages(toTopic: "books").first)
            #expect(entry.body == "Untitled Notes has been added to the list")
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
            #expect(deleted.body == "Dune has been deleted from the list")
            #expect(deleted.data == ["type": "book_deleted", "bookId": id.hex])
            #expect(deleted.message?.android?.collapseKey == id.hex)
        }
    }

    @Test func aSyntheticDeleteWithoutPreImageStillAnnouncesTheDeletion() async throws {
        try await BooksAppFixture.run { app in
            try await app.fire("onBookPushNotification", event: .delete(id: "book-42"))
            let entry = try #require(app.outbox.messages(toTopic: "books").first)
            #expect(entry.title == "Book deleted")
            #expect(entry.body == "A book has been deleted from the list")
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
            #expect(try await app.invocations(trigger: "onBookPushNotification").count == 1)
        }
    }
}
