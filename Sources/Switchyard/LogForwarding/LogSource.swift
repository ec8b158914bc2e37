/// What ran a function, as App Services' logs tell it: the log type a forwarder filters on, and the `type` of the
/// entry it hands on.
package enum LogSource: Sendable, Equatable {
    /// A client's call.
    case function
    case databaseTrigger, scheduledTrigger, authenticationTrigger
    /// A trigger's `onFailure` handler or `onSuspend` alert.
    case triggerErrorHandler
    /// An HTTPS endpoint's function, or its script authentication function.
    case endpoint
    /// A log forwarder's own function: never forwarded, so that a forwarder cannot feed itself.
    case logForwarder

    init(trigger kind: TriggerDefinition.Kind) {
        switch kind {
        case .database: self = .databaseTrigger
        case .scheduled: self = .scheduledTrigger
        case .authentication: self = .authenticationTrigger
        }
    }

    /// The log type forwarders filter on; nil for what is never forwarded.
    package var logType: LogForwarder.LogType? {
        switch self {
        case .function: .function
        case .databaseTrigger, .scheduledTrigger, .authenticationTrigger: .trigger
        case .triggerErrorHandler: .triggerErrorHandler
        case .endpoint: .endpoint
        case .logForwarder: nil
        }
    }

    /// App Services' name for the entry's type.
    package var entryType: String {
        switch self {
        case .function: "FUNCTION"
        case .databaseTrigger: "DB_TRIGGER"
        case .scheduledTrigger: "SCHEDULED_TRIGGER"
        case .authenticationTrigger: "AUTH_TRIGGER"
        case .triggerErrorHandler: "TRIGGER_ERROR_HANDLER"
        case .endpoint: "ENDPOINT"
        case .logForwarder: "LOG_FORWARDER"
        }
    }
}
