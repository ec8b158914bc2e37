/// One trigger from `triggers.yaml`: what it watches and which registered function it calls.
public struct TriggerDefinition: Sendable, Equatable {
    /// Unique within the app; letters, digits, `_` and `-` (App Services' rule).
    public var name: String
    /// The registered function the trigger calls.
    public var function: String
    public var disabled: Bool
    public var kind: Kind

    public enum Kind: Sendable, Equatable {
        case database(DatabaseTrigger)
        case scheduled(ScheduledTrigger)
        case authentication(AuthenticationTrigger)

        /// The word used for `type:` in `triggers.yaml`.
        public var typeName: String {
            switch self {
            case .database: "database"
            case .scheduled: "scheduled"
            case .authentication: "authentication"
            }
        }
    }

    public init(name: String, function: String, disabled: Bool = false, kind: Kind) {
        self.name = name
        self.function = function
        self.disabled = disabled
        self.kind = kind
    }

    /// App Services' naming rule for triggers: one or more ASCII letters, digits, `_` or `-`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
            }
    }
}
