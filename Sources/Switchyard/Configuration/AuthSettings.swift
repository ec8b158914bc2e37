/// The `auth:` section of `triggers.yaml`: which providers are enabled, the email/password provider's
/// settings and where custom user data lives.
public struct AuthSettings: Sendable, Equatable {
    public var providers: Set<AuthenticationProvider>
    public var customUserData: CustomUserData?
    /// `auth.emailPassword`; nil when `triggers.yaml` says nothing about the provider's settings.
    public var emailPassword: EmailPasswordSettings?

    public init(
        providers: Set<AuthenticationProvider> = [], customUserData: CustomUserData? = nil,
        emailPassword: EmailPasswordSettings? = nil
    ) {
        self.providers = providers
        self.customUserData = customUserData
        self.emailPassword = emailPassword
    }

    /// A collection holding one document per user, found by `userIdField`, exposed as the user's custom data.
    public struct CustomUserData: Sendable, Equatable {
        public var database: String
        public var collection: String
        public var userIdField: String
        public var enabled: Bool

        public init(database: String, collection: String, userIdField: String, enabled: Bool = true) {
            self.database = database
            self.collection = collection
            self.userIdField = userIdField
            self.enabled = enabled
        }
    }
}
