import Switchyard

/// The tutorial's `product.user` document for an App Services user, as its `createNewUser` and `updateUser`
/// write it: `{_id: user id, _partition: user id, userName, userPreferences: {displayName}, providerType: {id,
/// provider_type}, registered, favoriteBooks: []}`.
///
/// A user is registered when the deciding identity is not anonymous; then `userName` and `displayName` are the
/// user's email, else null. Only registered users hear about their favourite books (`onBookUpdated`).
struct UserDocument {
    static let anonymousProvider = "anon-user"

    let userId: String
    let identity: FunctionUser.Identity?
    let email: String?

    /// `identity` decides whether the user is registered: the first one at sign-up, the last one at login.
    init(_ user: FunctionUser, identity: FunctionUser.Identity?) {
        userId = user.id
        self.identity = identity
        email = user.data["email"]?.stringValue
    }

    var registered: Bool { identity.map { $0.providerType != Self.anonymousProvider } ?? false }

    /// What the identity decides: `userName`, `userPreferences`, `providerType` and `registered`.
    var profile: BSONDocument {
        let name: BSON = registered ? email.map(BSON.string) ?? .null : .null
        var providerType: BSONDocument = [:]
        if let identity {
            providerType = ["id": .string(identity.id), "provider_type": .string(identity.providerType)]
        }
        return [
            "userName": name, "userPreferences": ["displayName": name], "providerType": .document(providerType),
            "registered": .bool(registered),
        ]
    }

    /// What a new document has besides its profile.
    var initialFields: BSONDocument {
        ["_partition": .string(userId), "favoriteBooks": []]
    }

    /// The whole document of a user who has none yet, but its `_id`.
    var newDocument: BSONDocument {
        var document: BSONDocument = ["_partition": .string(userId)]
        for (key, value) in profile { document.append(key, value) }
        document.append("favoriteBooks", [])
        return document
    }
}
