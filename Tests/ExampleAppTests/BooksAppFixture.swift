import BSON
import Foundation
import Functions
import Switchyard
import SwitchyardTesting

/// The repository's own app (its `triggers.yaml`, `values.json` and `functions/`), started fresh per test.
enum BooksAppFixture {
    /// The repository root, which holds the example app's configuration.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func run<Result>(_ body: (TestApp) async throws -> Result) async throws -> Result {
        try await TestApp.withApp(configDirectory: directory, registry: functionRegistry, body)
    }

    static func user(_ id: String) -> FunctionUser {
        FunctionUser(id: id, identities: [.init(id: "\(id)-identity", providerType: "local-userpass")])
    }

    /// A book shaped like a Google Books volume, as the tutorial's client stores it.
    static func book(
        _ id: ObjectId = ObjectId(), title: String, authors: [String] = [], thumbnail: String? = nil
    ) -> BSONDocument {
        var volumeInfo: BSONDocument = ["title": .string(title), "authors": .array(authors.map(BSON.string))]
        if let thumbnail { volumeInfo.append("imageLinks", ["thumbnail": .string(thumbnail)]) }
        return ["_id": .objectId(id), "volumeInfo": .document(volumeInfo)]
    }

    /// A user's custom user data, as `createUserData` and `updateFCMUserToken` leave it.
    static func userData(_ userId: String, tokens: [String], favorites: [ObjectId]) -> BSONDocument {
        [
            "userId": .string(userId), "FCMToken": .array(tokens.map(BSON.string)),
            "favoriteBooks": .array(favorites.map(BSON.objectId)),
        ]
    }
}
