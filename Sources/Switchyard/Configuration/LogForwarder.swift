/// One log forwarder from `logForwarders:` (App Services' `log_forwarders/<name>.json`): which run records it
/// takes (by log type and status), whether it hands them on one at a time or in batches, and where to.
package struct LogForwarder: Sendable, Equatable {
    /// App Services' log types. Switchyard's invocation log records function runs only, so `function`,
    /// `trigger`, `trigger_error_handler` and `endpoint` match records; the others are accepted, as App Services
    /// takes them, and match nothing (Switchyard records no logins, pushes, service calls, GraphQL, schema or
    /// sync events).
    package enum LogType: String, Sendable, CaseIterable, Comparable {
        case auth, endpoint, function, graphql, push, schema, service, sync, trigger
        case triggerErrorHandler = "trigger_error_handler"

        /// The types Switchyard records runs of.
        package static let recorded: Set<LogType> = [.function, .trigger, .triggerErrorHandler, .endpoint]

        package static func < (lhs: LogType, rhs: LogType) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A run's status as a forwarder filters it: `error` for a failed or timed-out run.
    package enum LogStatus: String, Sendable, CaseIterable, Comparable {
        case error, success

        package static func < (lhs: LogStatus, rhs: LogStatus) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    package enum Policy: String, Sendable, CaseIterable {
        /// Each record delivered on its own.
        case single
        /// Up to `maximumBatch` records a delivery, sent once that many wait or `batchInterval` after the first.
        case batch
    }

    package enum Action: Sendable, Equatable {
        /// Inserts the records into this collection.
        case collection(database: String, collection: String)
        /// Calls this callable function with one argument, the array of records.
        case function(String)
    }

    package var name: String
    package var logTypes: Set<LogType>
    package var logStatuses: Set<LogStatus>
    package var policy: Policy
    package var action: Action
    package var disabled: Bool

    /// App Services' own limit on a batch.
    package static let maximumBatch = 100

    package init(
        name: String, logTypes: Set<LogType>, logStatuses: Set<LogStatus>, policy: Policy = .single, action: Action,
        disabled: Bool = false
    ) {
        self.name = name
        self.logTypes = logTypes
        self.logStatuses = logStatuses
        self.policy = policy
        self.action = action
        self.disabled = disabled
    }

    /// Whether a run of this type that ended with this status is handed to the forwarder.
    package func forwards(_ type: LogType, _ status: LogStatus) -> Bool {
        !disabled && logTypes.contains(type) && logStatuses.contains(status)
    }
}
