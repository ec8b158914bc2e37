import BSON
import DocumentStore

/// The users the wire protocol authenticates, each with a SCRAM-SHA-256 and a SCRAM-SHA-1 credential, kept in the
/// store's `admin.mongodbUsers` (admin is not change-logged: adding a user fires no trigger). With none, the
/// server asks for no authentication, as a local mongod without users does.
///
/// Users live in `admin`, so drivers connect with `authSource=admin` (their default when the connection string
/// names no database). Each user holds built-in roles (`WireRole`); one stored without any holds `root`.
package struct WireUsers: Sendable {
    package static let database = "admin"
    package static let collection = "mongodbUsers"
    /// Bounds on what `add` takes, so a stored user stays a small document.
    package static let maximumNameLength = 128
    package static let maximumPasswordLength = 1024

    private let credentials: [String: [ScramMechanism: ScramCredential]]
    private let roles: [String: [WireRole]]
    /// Seeds the stand-in salts of unknown users, so asking twice about one shows the same salt, as for a real user.
    private let standInSecret = ScramMechanism.randomBytes(32)

    package init() {
        credentials = [:]
        roles = [:]
    }

    init(credentials: [String: [ScramMechanism: ScramCredential]], roles: [String: [WireRole]] = [:]) {
        self.credentials = credentials
        self.roles = roles
    }

    package var isEmpty: Bool { credentials.isEmpty }

    package var names: [String] { credentials.keys.sorted() }

    /// The roles `user` holds: `root` for a user stored without any.
    package func roles(of user: String) -> [WireRole] {
        roles[user] ?? [.root]
    }

    func credential(_ user: String, _ mechanism: ScramMechanism) -> ScramCredential? {
        credentials[user]?[mechanism]
    }

    /// What an unknown user's exchange runs on: a salt that depends on the name alone, keys no password matches.
    func standIn(_ user: String, _ mechanism: ScramMechanism) -> ScramCredential {
        let salt = Array(mechanism.hmac(key: standInSecret, Array(user.utf8)).prefix(mechanism.saltLength))
        return ScramCredential(
            mechanism: mechanism, iterations: mechanism.defaultIterations, salt: salt,
            storedKey: ScramMechanism.randomBytes(salt.count), serverKey: ScramMechanism.randomBytes(salt.count))
    }

    /// The users in `store`; a document that is not a user (written there by hand) is left out.
    package static func load(from store: DocumentStore) async throws -> WireUsers {
        var credentials: [String: [ScramMechanism: ScramCredential]] = [:]
        var roles: [String: [WireRole]] = [:]
        for document in try await users(store).find().toArray() {
            guard let name = document["user"]?.stringValue, case .document(let stored)? = document["credentials"]
            else { continue }
            // Stored as MongoDB stores them, `[{role, db}]`; one that is no built-in role grants nothing.
            if case .array(let held)? = document["roles"] {
                roles[name] = held.compactMap { value in
                    guard let role = value.documentValue, let text = role["role"]?.stringValue,
                        let name = WireRole.Name(rawValue: text), let database = role["db"]?.stringValue
                    else { return nil }
                    return WireRole(name: name, database: database)
                }
            }
            for mechanism in ScramMechanism.allCases {
                if case .document(let fields)? = stored[mechanism.rawValue],
                    let credential = ScramCredential(mechanism: mechanism, document: fields)
                {
                    credentials[name, default: [:]][mechanism] = credential
                }
            }
        }
        return WireUsers(credentials: credentials, roles: roles)
    }

    /// Adds the user, or gives an existing one a new password; returns whether it existed. Only the credentials
    /// derived from `password` are stored.
    @discardableResult
    package static func add(
        _ name: String, password: String, roles: [WireRole] = [.root], to store: DocumentStore
    ) async throws -> Bool {
        guard !name.isEmpty, name.utf8.count <= maximumNameLength,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw StoreError.badValue(
                "a user name is 1 to \(maximumNameLength) bytes without control characters")
        }
        guard !password.isEmpty, password.utf8.count <= maximumPasswordLength else {
            throw StoreError.badValue("a password is 1 to \(maximumPasswordLength) bytes")
        }
        var stored: BSONDocument = [:]
        for mechanism in ScramMechanism.allCases {
            stored[mechanism.rawValue] = .document(
                try ScramCredential.derive(mechanism: mechanism, user: name, password: password).document)
        }
        let document: BSONDocument = [
            "_id": .string("\(database).\(name)"), "user": .string(name), "db": .string(database),
            "credentials": .document(stored),
            "roles": .array(roles.map { ["role": .string($0.name.rawValue), "db": .string($0.database)] }),
        ]
        let result = try await users(store).replaceOne(["_id": .string("\(database).\(name)")], document, upsert: true)
        return result.matchedCount > 0
    }

    /// Removes the user; false when there was none.
    package static func remove(_ name: String, from store: DocumentStore) async throws -> Bool {
        try await users(store).deleteOne(["_id": .string("\(database).\(name)")]).deletedCount > 0
    }

    private static func users(_ store: DocumentStore) -> DocumentCollection {
        store.database(database).collection(collection)
    }
}
