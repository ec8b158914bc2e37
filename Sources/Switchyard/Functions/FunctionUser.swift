import BSON

/// The user a function runs as: the caller of a callable function, the user of an authentication event,
/// or the system user for database and scheduled triggers.
public struct FunctionUser: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case normal, server, system
    }

    /// An identity the user logged in with (`anon-user`, `local-userpass`, …).
    public struct Identity: Sendable, Equatable {
        public var id: String
        public var providerType: String

        public init(id: String, providerType: String) {
            self.id = id
            self.providerType = providerType
        }
    }

    public var id: String
    public var kind: Kind
    /// Provider metadata (`email`, `name`, …).
    public var data: BSONDocument
    /// The user's document from the configured custom user data collection.
    public var customData: BSONDocument
    public var identities: [Identity]

    public init(
        id: String, kind: Kind = .normal, data: BSONDocument = [:], customData: BSONDocument = [:],
        identities: [Identity] = []
    ) {
        self.id = id
        self.kind = kind
        self.data = data
        self.customData = customData
        self.identities = identities
    }

    /// The user database and scheduled triggers run as.
    public static let system = FunctionUser(id: "system", kind: .system)
}
