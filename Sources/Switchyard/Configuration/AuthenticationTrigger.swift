/// A trigger that fires when a user is created, logs in, or is deleted through one of the given providers.
package struct AuthenticationTrigger: Sendable, Equatable {
    package var operation: AuthenticationOperation
    package var providers: Set<AuthenticationProvider>

    package init(operation: AuthenticationOperation, providers: Set<AuthenticationProvider>) {
        self.operation = operation
        self.providers = providers
    }
}

package enum AuthenticationOperation: String, Sendable, Hashable, CaseIterable {
    case create
    case login
    case delete
}

/// App Services' authentication provider types, spelled as in its configuration files.
package enum AuthenticationProvider: String, Sendable, Hashable, CaseIterable, Comparable {
    case anonymous = "anon-user"
    case emailPassword = "local-userpass"
    case apiKey = "api-key"
    case customJWT = "custom-token"
    case customFunction = "custom-function"
    case google = "oauth2-google"
    case apple = "oauth2-apple"
    case facebook = "oauth2-facebook"

    package static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
