import BSON
import Foundation
import Switchyard
import SwitchyardTesting
import Testing

/// The repository's `seed/`, which `make run` imports into a new data directory: books in the article's Google
/// Books shape and a registered reader whose device hears about their favourites at once.
@Suite struct SeedDataTests {
    static let directory = BooksAppFixture.directory + "/seed"

    @Test func theSeededReaderHearsAboutAFavouriteAtOnce() async throws {
        try await BooksAppFixture.run { app in
            let summary = try await DataImport.import(from: Self.directory, into: app.store)
            #expect(
                summary.collections.map(\.namespace.description).sorted() == [
                    "product.book", "product.customUserData", "product.user",
                ])
            let books = try app.collection("product.book")
            let seeded = try await books.find().toArray()
            #expect(seeded.count >= 3)
            #expect(seeded.allSatisfy { $0.value(atPath: "volumeInfo.title")?.stringValue != nil })
            let reader = try #require(try await app.collection("product.user").findOne(["registered": true]))
            let favourite = try #require(reader["favoriteBooks"]?.arrayValue?.first)
            let data = try #require(
                try await app.collection("product.customUserData").findOne(["userId": reader["_id"] ?? .null]))
            let device = try #require(data["FCMToken"]?.arrayValue?.first?.stringValue)

            try await books.updateOne(
                ["_id": favourite], ["$set": ["volumeInfo.title": "Pacific Linguistics, 2nd ed."]])
            try await app.awaitIdle()
            let sent = app.outbox.messages(toToken: device)
            #expect(sent.map(\.title) == ["Pacific Linguistics, 2nd ed. changed"])
            #expect(sent.first?.message?.apns?.fcmOptions?.image?.contains("books.google.com") == true)
        }
    }
}
