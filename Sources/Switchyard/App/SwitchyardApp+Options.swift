import Foundation
import Messaging

extension SwitchyardApp {
    /// How an app is opened, beyond its configuration: all defaulted.
    package struct Options: Sendable {
        /// Where the app's data lives.
        package enum Storage: Sendable {
            /// SQLite in `<configuration directory>/.switchyard/` (in memory when opened without a directory).
            case configurationDirectory
            /// SQLite in this directory.
            case directory(String)
            /// Nothing survives `stop()`; for tests.
            case memory
        }

        package var storage: Storage
        /// What `context.services.messaging` sends through; nil uses the outbox, which delivers nothing and
        /// records every accepted message in `local.outbox` (see `SwitchyardApp.outbox`).
        package var messaging: (any PushMessaging)?
        /// Where `SWITCHYARD_SECRET_<NAME>` secrets are looked up.
        package var variables: [String: String]
        /// How many invocation records `local.invocations` keeps.
        package var invocationRetention: Int
        /// How many outbox entries `local.outbox` keeps.
        package var outboxRetention: Int
        /// The names `context.services.mongodb(_:)` answers to.
        package var mongodbServiceNames: Set<String>
        /// The trigger dispatcher's clock and defaults (tests drive schedules with a fake clock).
        package var triggers: TriggerRuntimeConfiguration
        /// Where the app counts which triggers and functions ran (a test run's coverage); nil counts nothing.
        package var coverage: RunCoverage?

        package init(
            storage: Storage = .configurationDirectory, messaging: (any PushMessaging)? = nil,
            variables: [String: String] = ProcessInfo.processInfo.environment,
            invocationRetention: Int = InvocationLog.defaultRetention,
            outboxRetention: Int = OutboxLog.defaultRetention,
            mongodbServiceNames: Set<String> = [MongoDBService.defaultName],
            triggers: TriggerRuntimeConfiguration = TriggerRuntimeConfiguration(), coverage: RunCoverage? = nil
        ) {
            self.storage = storage
            self.messaging = messaging
            self.variables = variables
            self.invocationRetention = invocationRetention
            self.outboxRetention = outboxRetention
            self.mongodbServiceNames = mongodbServiceNames
            self.triggers = triggers
            self.coverage = coverage
        }
    }
}
