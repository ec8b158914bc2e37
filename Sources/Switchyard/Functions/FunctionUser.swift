import BSON

/// The user a function runs as: the caller of a callable function, the user of an authentication event,
/// or the system user for database and scheduled triggers.
///
/// The fields live in one shared box until a copy changes one: a call hands its user on to the function's
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

    private struct Fields: Equatable {
        var id: String
        var kind: Kind
        var data: BSONDocument
        var customData: BSONDocument
        var identities: [Identity]
    }

    // Unchecked: a box is changed only through a user that holds the only reference to it (`unique`).
    private final class Box: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    /// The box, copied first when another user shares it.
    private mutating func unique() -> Box {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
        return box
    }

    public var id: String {
        get { box.fields.id }
        set { unique().fields.id = newValue }
    }
    public var kind: Kind {
        get { box.fields.kind }
        set { unique().fields.kind = newValue }
    }
    /// Provider metadata (`email`, `name`, …).
    public var data: BSONDocument {
        get { box.fields.data }
        set { unique().fields.data = newValue }
    }
    /// The user's document from the configured custom user data collection.
    public var customData: BSONDocument {
        get { box.fields.customData }
        set { unique().fields.customData = newValue }
    }
    public var identities: [Identity] {
        get { box.fields.identities }
        set { unique().fields.identities = newValue }
    }

    public init(
        id: String, kind: Kind = .normal, data: BSONDocument = [:], customData: BSONDocument = [:],
        identities: [Identity] = []
    ) {
        box = Box(Fields(id: id, kind: kind, data: data, customData: customData, identities: identities))
    }

    public static func == (lhs: FunctionUser, rhs: FunctionUser) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    /// The user database and scheduled triggers run as.
    public static let system = FunctionUser(id: "system", kind: .system)
}
