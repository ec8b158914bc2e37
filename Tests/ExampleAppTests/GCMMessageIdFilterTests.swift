import BSON
import Messaging
import SwitchyardTesting
import Testing

/// The tutorial's iOS client (`NotificationsManager`) drops every notification whose `userInfo` has no
/// `gcm.message_id`: every message the example app sends must carry one on iOS, and a book's cover must reach
/// the notification service extension (`mutable-content: 1` and `fcm_options.image`).
///
/// Written against what reaches the phone, not the functions' names: it runs every flow (books added with and
/// without a cover, a favourite changed, a book deleted) and checks all of the outbox.
@Suite struct GCMMessageIdFilterTests {
    static let phone = "ios-phone-token"
    static let cover = "https://books.google.com/books/content?id=dune&printsec=frontcover&img=1&zoom=5"

    @Test func everyMessageTheExampleAppSendsPassesTheIOSClientsFilter() async throws {
        try await BooksAppFixture.run { app in
            try await app.outbox.register(Self.phone, platform: .ios)
            try await app.outbox.subscribe([Self.phone], to: "books")
            let withCover = ObjectId()
            let withoutCover = ObjectId()
            try await app.collection("product.book").insertMany([
                Self.book(withCover, title: "Dune", cover: Self.cover),
                Self.book(withoutCover, title: "Emma", cover: nil),
            ])
            // The tutorial's model: the reader's favourites on `product.user`, the device tokens on the custom
            // user data, joined by `userId`.
            try await app.collection("product.customUserData").insertOne([
                "userId": "reader", "FCMToken": [.string(Self.phone)],
            ])
            try await app.collection("product.user").insertOne([
                "_id": "reader", "_partition": "reader", "userName": "reader@example.com", "registered": true,
                "favoriteBooks": [.objectId(withCover), .objectId(withoutCover)],
            ])
            try await app.awaitIdle()
            try await app.collection("product.book").updateOne(
                ["_id": .objectId(withCover)],
                ["$set": ["volumeInfo": .document(Self.volumeInfo(title: "Dune Messiah", cover: Self.cover))]])
            try await app.collection("product.book").updateOne(
                ["_id": .objectId(withoutCover)], ["$set": ["volumeInfo.title": "Emma (annotated)"]])
            try await app.awaitIdle()
            try await app.collection("product.book").deleteOne(["_id": .objectId(withoutCover)])
            try await app.awaitIdle()

            let received = app.outbox.messages(reaching: Self.phone)
            #expect(app.outbox.messages(toTopic: "books").count == 3, "two books added, one deleted")
            #expect(!app.outbox.messages(toToken: Self.phone).isEmpty, "a favourite changed")
            #expect(received.count == app.outbox.delivered.count)
            for entry in app.outbox.delivered {
                let ios = try #require(entry.ios, "\(entry.name) records no iOS view")
                #expect(ios.userInfo["gcm.message_id"]?.stringValue?.isEmpty == false, "\(entry.name)")
                #expect(entry.android == nil, "the phone registered as iOS")
                if ios.image != nil {
                    #expect(ios.aps.mutableContent == 1, "\(entry.name): an image needs the extension")
                }
            }
            let added = try #require(
                app.outbox.messages(toTopic: "books").first { $0.ios?.aps.alert?.body?.contains("Dune") == true })
            #expect(added.ios?.aps.mutableContent == 1)
            #expect(added.ios?.image == Self.cover)
            #expect(added.ios?.userInfo["fcm_options"] == ["image": .string(Self.cover)])
            // The favourite whose new `volumeInfo` has a cover: its multicast carries it to the extension too.
            let changed = try #require(
                app.outbox.messages(toToken: Self.phone).first {
                    $0.ios?.aps.alert?.title == "Dune Messiah changed"
                })
            #expect(changed.ios?.aps.mutableContent == 1)
            #expect(changed.ios?.image == Self.cover)
        }
    }

    /// A Google Books volume as the tutorial stores it, the cover in `imageLinks.smallThumbnail`.
    static func volumeInfo(title: String, cover: String?) -> BSONDocument {
        var volumeInfo: BSONDocument = ["title": .string(title), "authors": ["Frank Herbert"]]
        if let cover { volumeInfo["imageLinks"] = ["smallThumbnail": .string(cover)] }
        return volumeInfo
    }

    static func book(_ id: ObjectId, title: String, cover: String?) -> BSONDocument {
        ["_id": .objectId(id), "volumeInfo": .document(volumeInfo(title: title, cover: cover))]
    }
}
