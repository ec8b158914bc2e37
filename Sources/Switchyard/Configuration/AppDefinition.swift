/// Everything `triggers.yaml` declares: the app id, its triggers, function settings and auth settings.
public struct AppDefinition: Sendable, Equatable {
    public var appId: String?
    public var triggers: [TriggerDefinition]
    /// Settings by function name.
    public var functions: [String: FunctionSettings]
    public var auth: AuthSettings

    public init(
        appId: String? = nil, triggers: [TriggerDefinition] = [], functions: [String: FunctionSettings] = [:],
        auth: AuthSettings = AuthSettings()
    ) {
        self.appId = appId
        self.triggers = triggers
        self.functions = functions
        self.auth = auth
    }
}
