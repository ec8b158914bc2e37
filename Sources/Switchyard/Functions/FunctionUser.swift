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

    /// Never changed once made (a change makes a new box): reading a field then loads that field alone, with no
    /// exclusivity check and no copy of the others.
    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    /// Replaces the box with one holding the fields as `change` leaves them.
    private mutating func change(_ change: (inout Fields) -> Void) {
        var fields = box.fields
        change(&fields)
        box = Box(fields)
    }

    public var id: String {
        get { box.fields.id }
        set { change { $0.id = newValue } }
    }
    public var kind: Kind {
        get { box.fields.kind }
        set { change { $0.kind = newValue } }
    }
    /// Provider metadata (`email`, `name`, …).
    public var data: BSONDocument {
        get { box.fields.data }
        set { change { $0.data = newValue } }
    }
    /// The user's document from the configured custom user data collection.
    public var customData: BSONDocument {
        get { box.fields.customData }
        set { change { $0.customData = newValue } }
    }
    public var identities: [Identity] {
        get { box.fields.identities }
        set { change { $0.identities = newValue } }
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
