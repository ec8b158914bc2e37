import BSON
import DocumentStore
import Foundation
import Switchyard

/// The app's users, their email/password credentials and their sessions, kept in the store's `local` database
/// (not change-logged, so user writes never fire database triggers):
///
/// - `switchyard_users`: one `UserRecord` per user;
/// - `switchyard_credentials`: `{_id: "<lower-cased email>", userId, email, algorithm, salt, hash, iterations,
///   createdAt}`, never returned by any API;
/// - `switchyard_sessions`: one `UserSession` per login;
/// - `switchyard_api_keys`: one `APIKey` per key, holding its hash, never the key.
///
/// Creating, logging in and deleting users fire the app's authentication triggers. The client API and the admin
/// API share one directory (`AppServer.clientAPI.users`).
package final class UserDirectory: Sendable {
    package static let database = "local"
    package static let usersCollection = "switchyard_users"
    package static let credentialsCollection = "switchyard_credentials"
    package static let sessionsCollection = "switchyard_sessions"

    static let anonymousProvider = AuthenticationProvider.anonymous.rawValue
    static let passwordProvider = AuthenticationProvider.emailPassword.rawValue

    let app: SwitchyardApp
    let passwordHasher: PasswordHasher
    /// How long a session (and so its refresh token) lasts.
    let sessionLifetime: TimeInterval
    let now: @Sendable () -> Date
    /// Users and sessions as last read, so that checking a request's token queries nothing while neither
    /// collection is written (every writer goes through the app's store, which the cache watches; see
    /// `CollectionReadCache`): a logout, a revoked session or a deleted user is seen by the very next request. On a
    /// database several `serve` processes share, another node's writes are seen once its notification arrives
    /// (`CollectionWriteVersion`, docs/CLUSTER.md).
    private let userCache: CollectionReadCache<String, UserRecord?>
    private let sessionCache: CollectionReadCache<String, UserSession?>
    private let userVersion: CollectionWriteVersion
    private let sessionVersion: CollectionWriteVersion
    /// Told of every session that ends here, for the streams that end with their session.
    let sessionEndings = SessionEndings()

    /// Where the users and sessions collections stand: equal stamps mean neither was written in between, so
    /// whatever was read from them after the first stamp was taken still holds.
    struct Stamp: Equatable {
        var users: UInt64
        var sessions: UInt64
    }

    /// Take it before reading what it is to vouch for.
    var stamp: Stamp { Stamp(users: userVersion.current, sessions: sessionVersion.current) }

    init(
        app: SwitchyardApp, passwordHasher: PasswordHasher, sessionLifetime: TimeInterval,
        now: @escaping @Sendable () -> Date
    ) {
        self.app = app
        self.passwordHasher = passwordHasher
        self.sessionLifetime = sessionLifetime
        self.now = now
        let database = app.store.database(Self.database)
        userCache = CollectionReadCache(collection: database.collection(Self.usersCollection))
        sessionCache = CollectionReadCache(collection: database.collection(Self.sessionsCollection))
        userVersion = userCache.collection.writeVersion
        sessionVersion = sessionCache.collection.writeVersion
    }

    var users: DocumentCollection { userCache.collection }
    private var credentials: DocumentCollection {
        app.store.database(Self.database).collection(Self.credentialsCollection)
    }
    private var sessions: DocumentCollection { sessionCache.collection }

    /// Indexes the collections and drops sessions past their expiry (revoked or not: their tokens are dead).
    /// Every collection is made here, before the server answers: on a database several `serve` processes share, a
    /// collection another node made a moment ago is read here only once that node's notification arrived, so a
    /// user's first login on one node would otherwise find no user on another for that moment.
    func prepare() async throws {
        _ = try await users.createIndex(["createdAt": -1, "_id": -1])
        _ = try await sessions.createIndex(["userId": 1])
        _ = try await credentials.createIndex(["userId": 1])
        try await sessions.deleteMany(["expiresAt": ["$lt": .datetime(BSONDate(now()))]])
        try await prepareAPIKeys()
    }

    // MARK: Reading and deleting (for the admin API too)

    /// Users, newest first.
    package func list(limit: Int = 100, skip: Int = 0) async throws -> [UserRecord] {
        let options = FindOptions(sort: ["createdAt": -1, "_id": -1], skip: max(0, skip), limit: max(0, limit))
        return try await users.find([:], options: options).toArray().compactMap(UserRecord.init(document:))
    }

    package func count() async throws -> Int {
        try await users.countDocuments()
    }

    package func user(id: String) async throws -> UserRecord? {
        try await userCache.value(for: id) { users in
            try await users.findOne(["_id": .string(id)]).flatMap(UserRecord.init(document:))
        }
    }

    /// Deletes the user, their credentials, API keys and sessions (so their tokens stop working at once), then
    /// fires the `delete` authentication triggers.
    /// - Throws: `APIError` 404 `UserNotFound` when there is no such user.
    package func delete(id: String) async throws {
        guard let record = try await user(id: id) else { throw APIError.userNotFound(id) }
        let customData = try await customData(forUser: id)
        try await revokeSessions(ofUser: id)
        try await credentials.deleteMany(["userId": .string(id)])
        try await apiKeys.deleteMany(["userId": .string(id)])
        try await users.deleteOne(["_id": .string(id)])
        await fire(.delete, record, customData: customData)
    }

    /// The user's document in the app's custom user data collection; empty when none is configured or found.
    package func customData(forUser id: String) async throws -> BSONDocument {
        try await app.customUserData(forUser: id)
    }

    // MARK: Creating users and logging in

    func createAnonymousUser() async throws -> UserRecord {
        let record = UserRecord(
            id: ObjectId().hex, identities: [.init(id: ObjectId().hex, providerType: Self.anonymousProvider)],
            createdAt: now())
        try await users.insertOne(record.document)
        await fire(.create, record, customData: [:])
        return record
    }

    /// Creates an email/password user.
    /// - Throws: `APIError` 400 for an invalid email or password, 409 `AccountNameInUse` for a taken email.
    func register(email: String, password: String) async throws -> UserRecord {
        let email = email.trimmingCharacters(in: .whitespaces)
        try Self.validate(email: email, password: password)
        let hash = try await passwordHasher.hash(password)
        let record = UserRecord(
            id: ObjectId().hex, identities: [.init(id: ObjectId().hex, providerType: Self.passwordProvider)],
            data: ["email": .string(email)], createdAt: now())
        var credential: BSONDocument = [
            "_id": .string(email.lowercased()), "userId": .string(record.id), "email": .string(email),
        ]
        for (key, value) in hash.fields { credential.append(key, value) }
        credential.append("createdAt", .datetime(BSONDate(record.createdAt)))
        do {
            try await credentials.insertOne(credential)
        } catch let error as StoreError where error.code == .duplicateKey {
            throw APIError(status: 409, code: "AccountNameInUse", message: "name already in use")
        }
        do {
            try await users.insertOne(record.document)
        } catch {
            _ = try? await credentials.deleteOne(["_id": .string(email.lowercased())])
            throw error
        }
        await fire(.create, record, customData: [:])
        return record
    }

    /// The user whose email and password these are.
    /// - Throws: `APIError` 401 `InvalidPassword` for an unknown email or a wrong password alike (and as slowly).
    func authenticate(email: String, password: String) async throws -> UserRecord {
        let refused = APIError(status: 401, code: "InvalidPassword", message: "invalid username/password")
        let key = email.trimmingCharacters(in: .whitespaces).lowercased()
        guard let stored = try await credentials.findOne(["_id": .string(key)]),
            let hash = PasswordHash(fields: stored),
            let userId = stored["userId"]?.stringValue
        else {
            try await passwordHasher.verifyNothing(password)
            throw refused
        }
        guard try await passwordHasher.verify(password, against: hash), let record = try await user(id: userId) else {
            throw refused
        }
        return record
    }

    /// Records a login through `provider` and fires the `login` authentication triggers.
    func recordLogin(_ record: UserRecord, provider: String) async throws -> UserRecord {
        var record = record
        let time = now()
        record.lastLoginAt = time
        try await users.updateOne(["_id": .string(record.id)], ["$set": ["lastLoginAt": .datetime(BSONDate(time))]])
        await fire(.login, record, customData: try await customData(forUser: record.id), providers: [provider])
        return record
    }

    // MARK: Sessions

    func openSession(forUser userId: String) async throws -> UserSession {
        let created = now()
        let session = UserSession(
            id: ObjectId().hex, userId: userId, deviceId: ObjectId().hex, createdAt: created,
            expiresAt: created.addingTimeInterval(sessionLifetime))
        try await sessions.insertOne(session.document)
        return session
    }

    /// The session when it exists, belongs to `userId`, is not revoked and has not expired.
    func liveSession(id: String, userId: String) async throws -> UserSession? {
        let stored = try await sessionCache.value(for: id) { sessions in
            try await sessions.findOne(["_id": .string(id)]).flatMap(UserSession.init(document:))
        }
        guard let session = stored, session.userId == userId, session.isLive(at: now()) else { return nil }
        return session
    }

    func revokeSession(id: String) async throws {
        try await sessions.updateOne(
            ["_id": .string(id), "revokedAt": ["$exists": false]], ["$set": ["revokedAt": .datetime(BSONDate(now()))]])
        sessionEndings.end(session: id)
    }

    func revokeSessions(ofUser userId: String) async throws {
        try await sessions.updateMany(
            ["userId": .string(userId), "revokedAt": ["$exists": false]],
            ["$set": ["revokedAt": .datetime(BSONDate(now()))]])
        sessionEndings.end(sessionsOf: userId)
    }

    // MARK: Helpers

    func fire(
        _ operation: AuthEvent.OperationType, _ record: UserRecord, customData: BSONDocument, providers: [String]? = nil
    ) async {
        await app.triggers.fire(
            authEvent: AuthEvent(
                operationType: operation, providers: providers ?? record.providers,
                user: record.functionUser(customData: customData), time: now()))
    }

    /// App Services' rules: an address with an `@`, and a password of 6 to 128 characters.
    static func validate(email: String, password: String) throws {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
            !email.contains(where: \.isWhitespace)
        else {
            throw APIError(
                status: 400, code: "BadRequest", message: "email invalid: give an address like name@example.com")
        }
        guard (6...128).contains(password.count) else {
            throw APIError(status: 400, code: "BadRequest", message: "password must be between 6 and 128 characters")
        }
    }
}

extension APIError {
    static func userNotFound(_ id: String) -> APIError {
        APIError(status: 404, code: "UserNotFound", message: "user not found: '\(id)'")
    }
}
