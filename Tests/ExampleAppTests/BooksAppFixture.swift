import BSON
import Foundation
import Functions
import Switchyard
import SwitchyardTesting

/// The repository's own app (its `triggers.yaml`, `values.json` and `functions/`), started fresh per test, and
/// documents in the tutorial's data model.
enum BooksAppFixture {
    /// The repository root, which holds the example app's configuration.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func run<Result>(_ body: (TestApp) async throws -> Result) async throws -> Result {
        try await TestApp.withApp(configDirectory: directory, registry: functionRegistry, body)
    }

    /// An email/password user (`<id>@example.com`), as the auth layer hands it to triggers and calls.
    static func user(_ id: String) -> FunctionUser {
        FunctionUser(
            id: id, data: ["email": .string("\(id)@example.com")],
            identities: [.init(id: "\(id)-identity", providerType: "local-userpass")])
    }

    /// An anonymous user, as the tutorial's client logs in first.
    static func anonymousUser(_ id: String) -> FunctionUser {
        FunctionUser(id: id, identities: [.init(id: "\(id)-anonymous", providerType: "anon-user")])
    }

    /// A book shaped like a Google Books volume, as the tutorial's client stores it.
    static func book(
        _ id: ObjectId = ObjectId(), title: String, authors: [String] = [], smallThumbnail: String? = nil
    ) -> BSONDocument {
        var volumeInfo: BSONDocument = ["title": .string(title), "authors": .array(authors.map(BSON.string))]
        if let smallThumbnail { volumeInfo.append("imageLinks", ["smallThumbnail": .string(smallThumbnail)]) }
        return ["_id": .objectId(id), "_partition": "PUBLIC", "volumeInfo": .document(volumeInfo)]
    }

    /// A `product.user` document as `createNewUser` and `updateUser` leave it, with favourites.
    static func reader(_ userId: String, favorites: [ObjectId], registered: Bool = true) -> BSONDocument {
        let name: BSON = registered ? .string("\(userId)@example.com") : .null
        return [
            "_id": .string(userId), "_partition": .string(userId), "userName": name,
            "userPreferences": ["displayName": name],
            "providerType": [
                "id": .string("\(userId)-identity"), "provider_type": registered ? "local-userpass" : "anon-user",
            ],
            "registered": .bool(registered), "favoriteBooks": .array(favorites.map(BSON.objectId)),
        ]
    }

    /// A user's custom user data, as `updateFCMUserToken` leaves it.
    static func userData(_ userId: String, tokens: [String]) -> BSONDocument {
        ["userId": .string(userId), "FCMToken": .array(tokens.map(BSON.string))]
    }

    /// Inserts readers and their custom user data.
    static func insert(_ app: TestApp, readers: [(user: BSONDocument, data: BSONDocument)]) async throws {
        guard !readers.isEmpty else { return }
        try await app.collection("product.user").insertMany(readers.map(\.user))
        try await app.collection("product.customUserData").insertMany(readers.map(\.data))
    }
}
