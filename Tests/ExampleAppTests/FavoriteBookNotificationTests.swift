import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import SwitchyardTesting
import Testing

/// A favourite book changes: `onBookUpdated` (trigger `favouriteUserBookUpdated`) queues one entry per registered
/// reader in `product.pushNotification`, `sentPushNotification` (trigger `onSentPushNotification`) multicasts it,
/// and `retryUnprocessedNotifications` sends what failed.
@Suite(.coverageReport) struct FavoriteBookNotificationTests {
    /// Inserts the book and the readers, waits for the triggers, and forgets the topic message.
    private func seed(
        _ app: TestApp, book: ObjectId, readers: [(user: BSONDocument, data: BSONDocument)],
        smallThumbnail: String? = nil
    ) async throws {
        try await app.collection("product.book").insertOne(
            BooksAppFixture.book(book, title: "Dune", authors: ["Frank Herbert"], smallThumbnail: smallThumbnail))
        try await BooksAppFixture.insert(app, readers: readers)
        try await app.awaitIdle()
        app.outbox.removeAll()
    }

    private func reader(_ id: String, tokens: [String], favorites: [ObjectId], registered: Bool = true)
        -> (user: BSONDocument, data: BSONDocument)
    {
        (
            BooksAppFixture.reader(id, favorites: favorites, registered: registered),
            BooksAppFixture.userData(id, tokens: tokens)
        )
    }

    private func update(_ app: TestApp, book: ObjectId, _ update: BSONDocument) async throws {
        try await app.collection("product.book").updateOne(["_id": .objectId(book)], update)
        try await app.awaitIdle()
    }

    private func retitle(_ app: TestApp, book: ObjectId, to title: String) async throws {
        try await update(app, book: book, ["$set": ["volumeInfo.title": .string(title)]])
    }

    private func queue(_ app: TestApp) async throws -> [BSONDocument] {
        try await app.collection("product.pushNotification").find([:], options: .init(sort: ["userId": 1])).toArray()
    }

    @Test func eachDeviceOfEachRegisteredReaderIsNotifiedOnce() async throws {
        try await BooksAppFixture.run { app in
            let book = ObjectId()
            try await seed(
                app, book: book,
                readers: [
                    reader("u1", tokens: ["a1", "a2"], favorites: [book]),
                    reader("u2", tokens: ["b1"], favorites: [ObjectId(), book]),
                    reader("u3", tokens: [], favorites: [book]),
                    reader("u4", tokens: ["d1"], favorites: [ObjectId()]),
                    reader("u5", tokens: ["e1"], favorites: [book], registered: false),
                ])
            try await retitle(app, book: book, to: "Dune (40th anniversary)")

            let entries = try await queue(app)
            #expect(entries.map { $0["userId"] } == ["u1", "u2"])
            let first = try #require(entries.first)
            #expect(first["token"] == ["a1", "a2"])
            #expect(first["changes"] == ["volumeInfo.title": "Dune (40th anniversary)"])
            #expect(first["processed"] == true)
            #expect(first["date"]?.typeName == "date")
            #expect(first["bookId"] == .objectId(book))
            #expect(first["attempts"] == .int32(1))
            #expect(first["deliveredTokens"] == ["a1", "a2"])
            #expect(first["sentAt"] != nil)

            #expect(app.outbox.entries.count == 3)
            for token in ["a1", "a2", "b1"] {
                let sent = app.outbox.messages(toToken: token)
                #expect(sent.count == 1, "\(token)")
                let entry = try #require(sent.first)
                #expect(entry.title == "Dune (40th anniversary) changed")
                #expect(entry.body == "One of your favorites changed")
                #expect(entry.data == ["type": "favorite_book_updated", "bookId": book.hex])
                #expect(entry.message?.android?.collapseKey == book.hex)
                #expect(entry.message?.apns?.headers["apns-collapse-id"] == book.hex)
            }
            #expect(app.outbox.messages(toToken: "d1").isEmpty)
            #expect(app.outbox.messages(toToken: "e1").isEmpty)
            #expect(app.outbox.messages(toTopic: "books").isEmpty)
        }
    }

    /// The tutorial's JavaScript reads `changes.volumeInfo.title` and would throw on any other update.
    @Test func anUpdateThatLeavesTheTitleNamesTheBookAsItIsAndSendsItsCover() async throws {
        try await BooksAppFixture.run { app in
            let book = ObjectId()
            let cover = "http://books.example/dune-small.jpg"
            try await seed(
                app, book: book, readers: [reader("u1", tokens: ["a1"], favorites: [book])], smallThumbnail: cover)
            try await update(app, book: book, ["$set": ["volumeInfo.pageCount": 412]])

            let entry = try #require(app.outbox.messages(toToken: "a1").first)
            #expect(entry.title == "Dune changed")
            #expect(entry.message?.apns?.fcmOptions?.image == cover)
            #expect(entry.message?.apns?.payload?.value(atPath: "aps.mutable-content") == .int32(1))
            #expect(try await queue(app).first?["changes"] == ["volumeInfo.pageCount": 412])
        }
    }

    /// The article's example: the client replaces `volumeInfo`, so `changes` holds the new title and cover.
    @Test func aReplacedVolumeInfoSendsItsNewTitleAndSmallThumbnail() async throws {
        try await BooksAppFixture.run { app in
            let book = ObjectId()
            try await seed(app, book: book, readers: [reader("u1", tokens: ["a1"], favorites: [book])])
            let cover = "http://books.google.com/books/content?id=aCVZAAAAMAAJ&zoom=5"
            try await update(
                app, book: book,
                [
                    "$set": [
                        "volumeInfo": [
                            "title": "Pacific Linguistics", "imageLinks": ["smallThumbnail": .string(cover)],
                        ]
                    ]
                ])
            let entry = try #require(app.outbox.messages(toToken: "a1").first)
            #expect(entry.title == "Pacific Linguistics changed")
            #expect(entry.message?.apns?.fcmOptions?.image == cover)
        }
    }

    @Test func aUserWhoSignsUpAndRegistersADeviceHearsAboutTheirFavourite() async throws {
        try await BooksAppFixture.run { app in
            let book = ObjectId()
            try await seed(app, book: book, readers: [])
            let user = BooksAppFixture.user("reader")
            await app.authenticate(.create, user: user)
            try await app.awaitIdle()
            _ = try await app.call("updateFCMUserToken", "phone", "add", as: user)
            try await app.collection("product.user").updateOne(
                ["_id": "reader"], ["$addToSet": ["favoriteBooks": .objectId(book)]])
            try await retitle(app, book: book, to: "Dune Messiah")

            #expect(app.outbox.messages(toToken: "phone").map(\.title) == ["Dune Messiah changed"])
            _ = try await app.call("updateFCMUserToken", "phone", "remove", as: user)
            try await retitle(app, book: book, to: "Children of Dune")
            #expect(app.outbox.messages(toToken: "phone").count == 1)
            #expect(try await queue(app).count == 1)
        }
    }

    @Test func anAnonymousReaderHearsNothingUntilTheyRegister() async throws {
        try await BooksAppFixture.run { app in
            let book = ObjectId()
            try await seed(app, book: book, readers: [])
            let anonymous = BooksAppFixture.anonymousUser("reader")
            await app.authenticate(.create, user: anonymous, provider: "anon-user")
            try await app.awaitIdle()
            _ = try await app.call("updateFCMUserToken", "phone", "add", as: anonymous)
            try await app.collection("product.user").updateOne(
                ["_id": "reader"], ["$addToSet": ["favoriteBooks": .objectId(book)]])
            try await retitle(app, book: book, to: "Dune Messiah")
            #expect(app.outbox.messages(toToken: "phone").isEmpty)

            var registered = anonymous
            registered.data = ["email": "reader@example.com"]
            registered.identities.append(.init(id: "reader-password", providerType: "local-userpass"))
            await app.authenticate(.login, user: registered)
            try await app.awaitIdle()
            try await retitle(app, book: book, to: "Children of Dune")
            #expect(app.outbox.messages(toToken: "phone").map(\.title) == ["Children of Dune changed"])
        }
    }

    @Test func aBookNobodyFavouritesQueuesNothing() async throws {
        try await BooksAppFixture.run { app in
            let book = ObjectId()
            try await seed(app, book: book, readers: [reader("u1", tokens: ["a1"], favorites: [])])
            try await retitle(app, book: book, to: "Children of Dune")
            #expect(try await queue(app).isEmpty)
            #expect(app.outbox.entries.isEmpty)
            #expect(try await app.invocations(trigger: "favouriteUserBookUpdated").map(\.outcome) == [.success])
        }
    }

    @Test func anUnregisteredTokenIsRemovedFromTheCustomUserData() async throws {
        try await BooksAppFixture.run { app in
            let book = ObjectId()
            try await seed(app, book: book, readers: [reader("u1", tokens: ["kept", "gone"], favorites: [book])])
            app.outbox.unregisteredTokens = ["gone"]
            try await retitle(app, book: book, to: "Dune Messiah")

            let user = try await app.collection("product.customUserData").findOne(["userId": "u1"])
            #expect(user?["FCMToken"] == ["kept"])
            let entry = try #require(try await queue(app).first)
            #expect(entry["processed"] == true)
            #expect(entry["token"] == ["kept", "gone"])
            #expect(entry["invalidTokens"] == ["gone"])
            #expect(entry["lastError"] == nil)
            #expect(app.outbox.messages(toToken: "kept").count == 1)
            #expect(app.outbox.failed.map(\.target) == [.token("gone")])
        }
    }

    /// A string that was never a token (FCM: `INVALID_ARGUMENT` on `message.token`) is removed like an unregistered
    /// one, while a failure of another device leaves the entry `processed: false` for the scheduled retry.
    @Test func anInvalidTokenIsRemovedAndOtherFailuresWaitForTheRetry() async throws {
        try await BooksAppFixture.run { app in
            let book = ObjectId()
            try await seed(
                app, book: book, readers: [reader("u1", tokens: ["kept", "junk", "gone"], favorites: [book])])
            app.outbox.malformedTokens = ["junk"]
            app.outbox.unregisteredTokens = ["gone"]
            app.outbox.failNextSends(1)
            try await retitle(app, book: book, to: "Dune Messiah")

            let user = try await app.collection("product.customUserData").findOne(["userId": "u1"])
            #expect(user?["FCMToken"] == ["kept"])
            let entry = try #require(try await queue(app).first)
            #expect(entry["processed"] == false)
            #expect(entry["invalidTokens"] == ["junk", "gone"])
            #expect(entry["deliveredTokens"] == nil || entry["deliveredTokens"] == [])
            #expect(entry["lastError"]?.stringValue?.hasPrefix("kept: UNAVAILABLE") == true)
        }
    }

    @Test func aTransientFailureIsSentByTheScheduledRetryAndOnlyOnce() async throws {
        try await BooksAppFixture.run { app in
            let book = ObjectId()
            try await seed(app, book: book, readers: [reader("u1", tokens: ["t1", "t2"], favorites: [book])])
            app.outbox.failNextSends(1)
            try await retitle(app, book: book, to: "Dune Messiah")

            var entry = try #require(try await queue(app).first)
            #expect(entry["processed"] == false)
            #expect(entry["attempts"] == .int32(1))
            #expect(entry["lastError"]?.stringValue?.contains("UNAVAILABLE") == true)
            #expect(entry["deliveredTokens"] == ["t2"])
            #expect(app.outbox.messages(toToken: "t1").isEmpty)
            #expect(app.outbox.messages(toToken: "t2").count == 1)
            // The trigger recorded the failure on the entry rather than failing (and retrying) itself.
            #expect(try await app.invocations(trigger: "onSentPushNotification").map(\.outcome) == [.success])

            // Not yet due: queued less than retryAfterMinutes before the scheduled time.
            try await app.fire("retryUnprocessedNotifications", event: .scheduled(at: Date()))
            #expect(try await queue(app).first?["processed"] == false)
            #expect(app.outbox.messages(toToken: "t1").isEmpty)

            try await app.fire("retryUnprocessedNotifications", event: .scheduled(at: Date() + 6 * 60))
            try await app.awaitIdle()
            entry = try #require(try await queue(app).first)
            #expect(entry["processed"] == true)
            #expect(entry["attempts"] == .int32(2))
            #expect(entry["sentAt"] != nil)
            #expect(entry["deliveredTokens"] == ["t2", "t1"])
            #expect(app.outbox.messages(toToken: "t1").map(\.title) == ["Dune Messiah changed"])

            // Later runs and a redelivered insert event send nothing again.
            try await app.fire("retryUnprocessedNotifications", event: .scheduled(at: Date() + 12 * 60))
            try await app.fire("onSentPushNotification", event: .insert(entry))
            try await app.awaitIdle()
            #expect(app.outbox.messages(toToken: "t1").count == 1)
            #expect(app.outbox.messages(toToken: "t2").count == 1)
            #expect(app.outbox.entries.count == 3)
        }
    }

    /// The retry finds the unprocessed entries through the queue's `{processed: 1, date: 1}` index, which gives
    /// them oldest first without reading the rest of the queue; the app makes the index when it opens.
    @Test func theScheduledRetrySendsTheOldestUnprocessedEntriesThroughTheQueueIndex() async throws {
        try await BooksAppFixture.run { app in
            let queue = try app.collection("product.pushNotification")
            let indexes = try await queue.listIndexes().compactMap { $0["key"]?.documentValue }
            #expect(indexes.contains(["processed": 1, "date": 1]))
            let now = Date()
            app.outbox.failNextSends(3)
            for (id, hoursAgo) in [("a", 3.0), ("b", 1.0), ("c", 2.0)] {
                try await queue.insertOne([
                    "_id": .string(id), "token": [.string("t-\(id)")],
                    "date": .datetime(BSONDate(now - hoursAgo * 3600)), "processed": false,
                    "title": .string("Book \(id)"),
                ])
            }
            try await queue.insertOne([
                "_id": "done", "token": ["t-done"], "date": .datetime(BSONDate(now - 4 * 3600)), "processed": true,
            ])
            try await app.awaitIdle()
            #expect(app.outbox.delivered.isEmpty)

            try await app.fire("retryUnprocessedNotifications", event: .scheduled(at: now + 6 * 60))
            #expect(app.outbox.delivered.map(\.title) == ["Book a changed", "Book c changed", "Book b changed"])
            #expect(try await queue.find(["processed": false]).toArray().isEmpty)
        }
    }

    @Test func aSendThatKeepsFailingStopsAtTheAttemptCap() async throws {
        try await BooksAppFixture.run { app in
            let book = ObjectId()
            try await seed(app, book: book, readers: [reader("u1", tokens: ["t1"], favorites: [book])])
            app.outbox.failNextSends(100)
            try await retitle(app, book: book, to: "Dune Messiah")
            for minutes in stride(from: 6, through: 60, by: 6) {
                try await app.fire(
                    "retryUnprocessedNotifications", event: .scheduled(at: Date() + Double(minutes) * 60))
            }
            let entry = try #require(try await queue(app).first)
            #expect(entry["processed"] == false)
            #expect(entry["attempts"] == .int32(5))
            #expect(app.outbox.failed.count == 5)
            #expect(app.outbox.delivered.isEmpty)
        }
    }

    @Test func aRedeliveredChangeEventQueuesNothingTwice() async throws {
        try await BooksAppFixture.run { app in
            let book = ObjectId()
            try await seed(app, book: book, readers: [reader("u1", tokens: ["t1"], favorites: [book])])
            let event = TestEvent.update(
                BooksAppFixture.book(book, title: "Dune"), with: ["$set": ["volumeInfo.title": "Dune Messiah"]]
            ).resumeToken(ResumeToken(sequence: 1_000_000))
            try await app.fire("favouriteUserBookUpdated", event: event)
            try await app.awaitIdle()
            try await app.fire("favouriteUserBookUpdated", event: event)
            try await app.awaitIdle()
            let entries = try await queue(app)
            #expect(entries.count == 1)
            #expect(entries.first?["changes"] == ["volumeInfo.title": "Dune Messiah"])
            #expect(app.outbox.messages(toToken: "t1").count == 1)
            let runs = try await app.invocations(trigger: "favouriteUserBookUpdated")
            #expect(runs.map(\.outcome) == [.success, .success])
            #expect(runs.last?.logs.contains { $0.contains("queued by an earlier delivery") } == true)
        }
    }
}
