import BSON
import Foundation

/// One API key as `local.switchyard_api_keys` keeps it: `{_id: ObjectId, name, userId, server, disabled, hash,
/// createdAt}`. The key itself is never stored: `hash` is its SHA-256, enough for a 256-bit random key, which
/// no dictionary can guess (passwords need a slow KDF; this does not). A user key logs in as the user who made it;
/// a server key (made through the admin API) as the server user made with it.
package struct APIKey: Sendable, Equatable {
    package var id: ObjectId
    package var name: String
    package var userId: String
    /// Made through the admin API with a server user of its own, rather than by an app user through the SDK.
    package var server: Bool
    package var disabled: Bool
    package var createdAt: Date

    /// The key's SHA-256 as stored: lookups by key compare hashes, never keys.
    static func hash(ofKey key: String) -> String {
        Cryptography.hex(Cryptography.sha256(Array(key.utf8)))
    }

    /// A new key's value: 32 random bytes as 64 hex digits, as long as App Services' keys.
    static func newKey() -> String {
        Cryptography.hex(Cryptography.randomBytes(32))
    }

    func document(hash: String) -> BSONDocument {
        [
            "_id": .objectId(id), "name": .string(name), "userId": .string(userId), "server": .bool(server),
            "disabled": .bool(disabled), "hash": .string(hash), "createdAt": .datetime(BSONDate(createdAt)),
        ]
    }

    /// Nil for a document that is not shaped like a key.
    init?(document: BSONDocument) {
        guard case .objectId(let id) = document["_id"], let name = document["name"]?.stringValue,
            let userId = document["userId"]?.stringValue, case .datetime(let created) = document["createdAt"]
        else { return nil }
        self.init(
            id: id, name: name, userId: userId, server: document["server"] == .bool(true),
            disabled: document["disabled"] == .bool(true), createdAt: created.date)
    }

    init(id: ObjectId, name: String, userId: String, server: Bool, disabled: Bool, createdAt: Date) {
        self.id = id
        self.name = name
        self.userId = userId
        self.server = server
        self.disabled = disabled
        self.createdAt = createdAt
    }

    /// The key as the SDKs read it (`{_id, name, disabled}`, the id as a hex string), with its value only when
    /// it was just made.
    func clientDocument(key: String? = nil) -> BSONDocument {
        var document: BSONDocument = ["_id": .string(id.hex)]
        if let key { document.append("key", .string(key)) }
        document.append("name", .string(name))
        document.append("disabled", .bool(disabled))
        return document
    }
}
