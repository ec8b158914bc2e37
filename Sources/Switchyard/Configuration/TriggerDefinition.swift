/// One trigger from `triggers.yaml`: what it watches and which registered function it calls.
package struct TriggerDefinition: Sendable, Equatable {
    /// Unique within the app; letters, digits, `_` and `-` (App Services' rule).
    package var name: String
    /// The registered function the trigger calls; empty when a `webhook` takes the events instead.
    package var function: String
    package var disabled: Bool
    package var kind: Kind
    /// The callable function told when the trigger suspends (`onSuspend:`): database and scheduled triggers.
    package var onSuspend: String?
    /// Where the trigger posts its suspension instead (`onSuspend: {webhook: …}`).
    package var suspensionWebhook: TriggerWebhook?
    /// Where a database trigger posts its events instead of calling `function`.
    package var webhook: TriggerWebhook?
    /// The callable function run with an event whose every attempt failed (`onFailure:`), before the trigger
    /// dead-letters it or suspends: database triggers.
    package var onFailure: String?

    package enum Kind: Sendable, Equatable {
        case database(DatabaseTrigger)
        case scheduled(ScheduledTrigger)
        case authentication(AuthenticationTrigger)

        /// The word used for `type:` in `triggers.yaml`.
        package var typeName: String {
            switch self {
            case .database: "database"
            case .scheduled: "scheduled"
            case .authentication: "authentication"
            }
        }
    }

    package init(
        name: String, function: String, disabled: Bool = false, kind: Kind, onSuspend: String? = nil,
        webhook: TriggerWebhook? = nil, onFailure: String? = nil, suspensionWebhook: TriggerWebhook? = nil
    ) {
        self.name = name
        self.function = function
        self.disabled = disabled
        self.kind = kind
        self.onSuspend = onSuspend
        self.webhook = webhook
        self.onFailure = onFailure
        self.suspensionWebhook = suspensionWebhook
    }

    /// What handles the events, as listings name it: the function, or `webhook <url>`.
    package var handlerName: String {
        webhook?.runName ?? function
    }

    /// What handles the events, as a sentence names it: `function <name>` or `webhook <url>`.
    package var handlerPhrase: String {
        webhook == nil ? "function \(function)" : handlerName
    }

    /// App Services' naming rule for triggers: one or more ASCII letters, digits, `_` or `-`.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
            }
    }
}
