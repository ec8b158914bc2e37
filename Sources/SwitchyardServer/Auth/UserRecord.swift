import BSON
import Foundation
import Switchyard

/// One user of the app as `local.switchyard_users` keeps it:
/// `{_id: "<24-hex id>", type: "normal", identities: [{id, provider_type}], data: {email?}, createdAt,
/// lastLoginAt?}` (`lastLoginAt` from the first login on; a registered user who never logged in has none).
package struct UserRecord: Sendable, Equatable {
    /// A 24-hex ObjectId string, as App Services spells user ids.
    package var id: String
    /// `normal` for the users that log in through the client API, `server` for a server API key's user.
    package var type: String
    package var identities: [FunctionUser.Identity]
    /// Provider metadata: `email` for email/password users.
    package var data: BSONDocument
    package var createdAt: Date
    package var lastLoginAt: Date?

    package init(
        id: String, type: String = "normal", identities: [FunctionUser.Identity], data: BSONDocument = [:],
        createdAt: Date, lastLoginAt: Date? = nil
    ) {
        self.id = id
        self.type = type
        self.identities = identities
        self.data = data
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
    }

    package var document: BSONDocument {
        var document: BSONDocument = [
            "_id": .string(id), "type": .string(type),
            "identities": .array(
                identities.map { ["id": .string($0.id), "provider_type": .string($0.providerType)] }),
            "data": .document(data), "createdAt": .datetime(BSONDate(createdAt)),
        ]
        if let lastLoginAt { document.append("lastLoginAt", .datetime(BSONDate(lastLoginAt))) }
        return document
    }

    /// Nil for a document that is not shaped like a user.
    package init?(document: BSONDocument) {
        guard let id = document["_id"]?.stringValue, let type = document["type"]?.stringValue,
            let identities = document["identities"]?.arrayValue, case .datetime(let created) = document["createdAt"]
        else { return nil }
        var parsed: [FunctionUser.Identity] = []
        for identity in identities {
            guard let fields = identity.documentValue, let identityId = fields["id"]?.stringValue,
                let provider = fields["provider_type"]?.stringValue
            else { return nil }
            parsed.append(FunctionUser.Identity(id: identityId, providerType: provider))
        }
        var lastLogin: Date?
        if case .datetime(let date) = document["lastLoginAt"] { lastLogin = date.date }
        self.init(
            id: id, type: type, identities: parsed, data: document["data"]?.documentValue ?? [:],
            createdAt: created.date, lastLoginAt: lastLogin)
    }

    /// The providers the user has identities with (`anon-user`, `local-userpass`).
    package var providers: [String] {
        var seen: [String] = []
        for identity in identities where !seen.contains(identity.providerType) { seen.append(identity.providerType) }
        return seen
    }

    /// The user as functions and authentication triggers see it (`context.user`), with `customData`.
    package func functionUser(customData: BSONDocument = [:]) -> FunctionUser {
        FunctionUser(
            id: id, kind: FunctionUser.Kind(rawValue: type) ?? .normal, data: data, customData: customData,
            identities: identities)
    }
}
