/// Where a push client gets the bearer token for its requests.
package protocol AccessTokenProvider: Sendable {
    /// A token valid for a while yet; fetches a new one when needed.
    func accessToken() async throws(PushError) -> String
    /// The server refused `token` (HTTP 401): forget it, so the next call fetches another.
    func invalidate(_ token: String) async
}

/// A fixed token: the FCM emulator accepts any (firebase-admin sends `owner` to emulators).
package struct StaticAccessToken: AccessTokenProvider {
    package let token: String

    package init(_ token: String = "owner") { self.token = token }

    package func accessToken() async throws(PushError) -> String { token }
    package func invalidate(_ token: String) async {}
}
