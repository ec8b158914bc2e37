/// Everything `triggers.yaml` declares: the app id, its triggers, function settings, auth settings, the
/// function time limit, the messaging emulator's settings, the indexes the app needs, its log forwarders and
/// where its data lives.
package struct AppDefinition: Sendable, Equatable {
    package var appId: String?
    package var triggers: [TriggerDefinition]
    /// Settings by function name.
    package var functions: [String: FunctionSettings]
    package var auth: AuthSettings
    /// How long a function may run before it fails as timed out, unless its settings say otherwise
    /// (`functionTimeout:` in `triggers.yaml`).
    package var functionTimeout: Duration
    /// The development FCM emulator (`messaging:`).
    package var messaging: MessagingSettings
    /// Origins of web pages that may use the client API besides this machine's (`allowedRequestOrigins:`,
    /// App Services' "allowed request origins"); `*` allows any.
    package var allowedRequestOrigins: [String]
    /// Data access rules and schemas from `rules:` and the app's `data_sources/` (see `DataAccessRules`).
    package var rules = DataAccessRules()
    /// Indexes the app makes when it opens (`indexes:`).
    package var indexes: [IndexDeclaration]
    /// Custom HTTPS endpoints from `endpoints:` and the app's `http_endpoints/config.json` (see `HTTPEndpoint`).
    package var endpoints: [HTTPEndpoint] = []
    /// Where run records are handed on as they are recorded (`logForwarders:`, App Services' log forwarders).
    package var logForwarders: [LogForwarder] = []
    /// Where the app's data lives when not in SQLite in the data directory (`store:`).
    package var store: StoreDeclaration?

    /// App Services' own limit on a function's run time.
    package static let defaultFunctionTimeout = Duration.seconds(300)

    package init(
        appId: String? = nil, triggers: [TriggerDefinition] = [], functions: [String: FunctionSettings] = [:],
        auth: AuthSettings = AuthSettings(), functionTimeout: Duration = AppDefinition.defaultFunctionTimeout,
        messaging: MessagingSettings = MessagingSettings(), allowedRequestOrigins: [String] = [],
        indexes: [IndexDeclaration] = [], logForwarders: [LogForwarder] = []
    ) {
        self.appId = appId
        self.triggers = triggers
        self.functions = functions
        self.auth = auth
        self.functionTimeout = functionTimeout
        self.messaging = messaging
        self.allowedRequestOrigins = allowedRequestOrigins
        self.indexes = indexes
        self.logForwarders = logForwarders
    }

    /// The time limit for one run of `function`.
    package func timeout(for function: String) -> Duration {
        functions[function]?.timeout ?? functionTimeout
    }
}
