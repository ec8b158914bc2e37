import BSON
import DocumentStore
import Foundation
import Switchyard

/// The API key provider's keys (`local.switchyard_api_keys`, see `APIKey`): user keys that app users make
/// through the SDK and log in with as themselves, and server keys made through the admin API, each with a server
/// user (`type: "server"`) of its own, as App Services makes them.
extension UserDirectory {
    package static let apiKeysCollection = "switchyard_api_keys"
    /// App Services' bounds: 20 keys a user, 100 server keys an app.
    static let userKeyLimit = 20
    static let serverKeyLimit = 100

    var apiKeys: DocumentCollection { app.store.database(Self.database).collection(Self.apiKeysCollection) }

    func prepareAPIKeys() async throws {
        _ = try await apiKeys.createIndex(["hash": 1], unique: true)
        _ = try await apiKeys.createIndex(["userId": 1, "name": 1], unique: true)
    }

    /// Makes a key for `userId`; answers it with its value, which is shown this once and never again.
    /// - Throws: `APIError` 400 for a bad name, 409 `APIKeyAlreadyExists` for a name the user has, 400 past 20 keys.
    func createAPIKey(named name: String, forUser userId: String) async throws -> (key: APIKey, value: String) {
        try Self.validate(keyName: name)
        guard try await apiKeys.countDocuments(["userId": .string(userId)]) < Self.userKeyLimit else {
            throw APIError.badRequest("a user has at most \(Self.userKeyLimit) API keys: delete one first")
        }
        return try await insertKey(
            APIKey(id: ObjectId(), name: name, userId: userId, server: false, disabled: false, createdAt: now()))
    }

    /// Makes a server key and its server user; answers the key with its value, shown this once.
    /// - Throws: `APIError` 400 for a bad name or past 100 server keys, 409 `APIKeyAlreadyExists` for a name in use.
    package func createServerAPIKey(named name: String) async throws -> (key: APIKey, value: String) {
        try Self.validate(keyName: name)
        let serverKeys = try await apiKeys.find(["server": true], options: FindOptions(projection: ["name": 1]))
            .toArray()
        guard !serverKeys.contains(where: { $0["name"]?.stringValue == name }) else { throw APIError.keyExists(name) }
        guard serverKeys.count < Self.serverKeyLimit else {
            throw APIError.badRequest("an app has at most \(Self.serverKeyLimit) server API keys: delete one first")
        }
        let id = ObjectId()
        let user = UserRecord(
            id: ObjectId().hex, type: FunctionUser.Kind.server.rawValue,
            identities: [.init(id: id.hex, providerType: AuthenticationProvider.apiKey.rawValue)],
            data: ["name": .string(name)], createdAt: now())
        try await users.insertOne(user.document)
        let made: (key: APIKey, value: String)
        do {
            made = try await insertKey(
                APIKey(id: id, name: name, userId: user.id, server: true, disabled: false, createdAt: user.createdAt))
        } catch {
            _ = try? await users.deleteOne(["_id": .string(user.id)])
            throw error
        }
        await fire(.create, user, customData: [:])
        return made
    }

    private func insertKey(_ key: APIKey) async throws -> (key: APIKey, value: String) {
        let value = APIKey.newKey()
        do {
            try await apiKeys.insertOne(key.document(hash: APIKey.hash(ofKey: value)))
        } catch let error as StoreError where error.code == .duplicateKey {
            throw APIError.keyExists(key.name)
        }
        return (key, value)
    }

    /// The user's keys, oldest first; the server keys when `userId` is nil.
    package func apiKeys(ofUser userId: String?) async throws -> [APIKey] {
        let filter: BSONDocument = userId.map { ["userId": .string($0), "server": false] } ?? ["server": true]
        return try await apiKeys.find(filter, options: FindOptions(sort: ["createdAt": 1, "_id": 1])).toArray()
            .compactMap(APIKey.init(document:))
    }

    /// The key with this id among the user's (the server keys' when `userId` is nil).
    /// - Throws: `APIError` 404 `APIKeyNotFound`.
    package func apiKey(id: String, ofUser userId: String?) async throws -> APIKey {
        guard let objectId = ObjectId(hex: id),
            let key = try await apiKeys.findOne(Self.keyFilter(objectId, userId)).flatMap(APIKey.init(document:))
        else { throw APIError.keyNotFound(id) }
        return key
    }

    /// Deletes the key; a server key's server user goes with it (their sessions end at once).
    package func deleteAPIKey(id: String, ofUser userId: String?) async throws {
        let key = try await apiKey(id: id, ofUser: userId)
        try await apiKeys.deleteOne(["_id": .objectId(key.id)])
        if key.server { try await delete(id: key.userId) }
    }

    /// Enables or disables the key: a disabled key logs nobody in; sessions it opened go on until they end.
    package func setAPIKey(id: String, ofUser userId: String?, disabled: Bool) async throws {
        let key = try await apiKey(id: id, ofUser: userId)
        try await apiKeys.updateOne(["_id": .objectId(key.id)], ["$set": ["disabled": .bool(disabled)]])
    }

    /// The user this key logs in.
    /// - Throws: `APIError` 401 `InvalidSession` for an unknown or disabled key.
    func authenticate(apiKey value: String) async throws -> UserRecord {
        guard
            let key = try await apiKeys.findOne(["hash": .string(APIKey.hash(ofKey: value))])
                .flatMap(APIKey.init(document:)),
            let record = try await user(id: key.userId)
        else { throw APIError(status: 401, code: "InvalidSession", message: "invalid API key") }
        guard !key.disabled else {
            throw APIError(status: 401, code: "InvalidSession", message: "API key '\(key.name)' is disabled")
        }
        return record
    }

    private static func keyFilter(_ id: ObjectId, _ userId: String?) -> BSONDocument {
        userId.map { ["_id": .objectId(id), "userId": .string($0), "server": false] }
            ?? ["_id": .objectId(id), "server": true]
    }

    /// A name of 1 to 100 characters with no control characters.
    static func validate(keyName name: String) throws(APIError) {
        guard (1...100).contains(name.count),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw APIError(
                status: 400, code: "InvalidParameter",
                message: "an API key's name must have 1 to 100 characters and no control characters")
        }
    }
}

extension APIError {
    static func keyNotFound(_ id: String) -> APIError {
        APIError(status: 404, code: "APIKeyNotFound", message: "API key not found: '\(id.prefix(64))'")
    }

    static func keyExists(_ name: String) -> APIError {
        APIError(status: 409, code: "APIKeyAlreadyExists", message: "an API key named '\(name)' already exists")
    }
}
