/// The `auth:` section of `triggers.yaml`: which providers are enabled, the email/password provider's
/// settings and where custom user data lives.
package struct AuthSettings: Sendable, Equatable {
    package var providers: Set<AuthenticationProvider>
    package var customUserData: CustomUserData?
    /// `auth.emailPassword`; nil when `triggers.yaml` says nothing about the provider's settings.
    package var emailPassword: EmailPasswordSettings?

    package init(
        providers: Set<AuthenticationProvider> = [], customUserData: CustomUserData? = nil,
        emailPassword: EmailPasswordSettings? = nil
    ) {
        self.providers = providers
        self.customUserData = customUserData
        self.emailPassword = emailPassword
    }

    /// Whether users may log in through `provider`: an app that lists no providers gets anonymous and
    /// email/password logins, and API keys only when it lists `api-key`, as App Services asks.
    package func enables(_ provider: AuthenticationProvider) -> Bool {
        providers.contains(provider) || (providers.isEmpty && provider != .apiKey)
    }

    /// A collection holding one document per user, found by `userIdField`, exposed as the user's custom data.
    package struct CustomUserData: Sendable, Equatable {
        package var database: String
        package var collection: String
        package var userIdField: String
        package var enabled: Bool

        package init(database: String, collection: String, userIdField: String, enabled: Bool = true) {
            self.database = database
            self.collection = collection
            self.userIdField = userIdField
            self.enabled = enabled
        }
    }
}
