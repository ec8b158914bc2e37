import BSON

/// The user a function runs as: the caller of a callable function, the user of an authentication event,
/// or the system user for database and scheduled triggers.
///
/// The fields live in one shared box, replaced when one changes: a call hands its user on to the function's
/// context, its rule and its record, and each copy then costs one reference count instead of one per field.
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

    private struct Fields: Equatable, Sendable {
        var id: String
        var kind: Kind
        var data: BSONDocument
        var customData: BSONDocument
        var identities: [Identity]
    }

    private var shared: SharedFields<Fields>

    public var id: String {
        get { shared.fields.id }
        set { shared.change { $0.id = newValue } }
    }
    public var kind: Kind {
        get { shared.fields.kind }
        set { shared.change { $0.kind = newValue } }
    }
    /// Provider metadata (`email`, `name`, …).
    public var data: BSONDocument {
        get { shared.fields.data }
        set { shared.change { $0.data = newValue } }
    }
    /// The user's document from the configured custom user data collection.
    public var customData: BSONDocument {
        get { shared.fields.customData }
        set { shared.change { $0.customData = newValue } }
    }
    public var identities: [Identity] {
        get { shared.fields.identities }
        set { shared.change { $0.identities = newValue } }
    }

    public init(
        id: String, kind: Kind = .normal, data: BSONDocument = [:], customData: BSONDocument = [:],
        identities: [Identity] = []
    ) {
        shared = SharedFields(Fields(id: id, kind: kind, data: data, customData: customData, identities: identities))
    }

    public static func == (lhs: FunctionUser, rhs: FunctionUser) -> Bool {
        lhs.shared.sharesBox(with: rhs.shared) || lhs.shared.fields == rhs.shared.fields
    }

    /// The user database and scheduled triggers run as.
    public static let system = FunctionUser(id: "system", kind: .system)
}
