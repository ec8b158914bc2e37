import BSON
import Foundation

/// OAuth2 access tokens for a service account, by the JWT-bearer grant (RFC 7523): an RS256-signed assertion
/// posted to the token URI. The token is cached and replaced `refreshMargin` before it expires; however many
/// sends wait for a token at once, one request to the token endpoint is in flight.
package actor ServiceAccountTokenProvider: AccessTokenProvider {
    /// What firebase-admin asks for: FCM sends and topic management.
    package static let messagingScopes = [
        "https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/firebase.messaging",
    ]

    package let account: ServiceAccount
    /// Where tokens come from: the account's `token_uri` unless overridden.
    package let tokenURI: String
    private let scopes: [String]
    private let http: HTTPClient
    private let retry: RetryPolicy
    private let httpVersion: HTTPVersion
    private let refreshMargin: Duration
    private let now: @Sendable () -> Date

    private var cached: (token: String, expiresAt: Date)?
    private var refreshing: Task<Result<(token: String, expiresAt: Date), PushError>, Never>?

    /// - Parameters:
    ///   - tokenURI: replaces the account's `token_uri` (a local emulator's).
    ///   - refreshMargin: how long before expiry a token is replaced.
    ///   - now: the clock expiry is judged by.
    package init(
        account: ServiceAccount, http: HTTPClient, tokenURI: String? = nil,
        scopes: [String] = ServiceAccountTokenProvider.messagingScopes, retry: RetryPolicy = RetryPolicy(),
        httpVersion: HTTPVersion = .http2, refreshMargin: Duration = .seconds(300),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.account = account
        self.tokenURI = tokenURI ?? account.tokenURI
        self.scopes = scopes
        self.http = http
        self.retry = retry
        self.httpVersion = httpVersion
        self.refreshMargin = refreshMargin
        self.now = now
    }

    package func accessToken() async throws(PushError) -> String {
        if let cached, now().addingTimeInterval(RetryPolicy.seconds(refreshMargin)) < cached.expiresAt {
            return cached.token
        }
        if let refreshing { return try await refreshing.value.get().token }
        // Unstructured, so a cancelled caller does not cancel the refresh the others wait for.
        let task = Task { await self.fetch() }
        refreshing = task
        let result = await task.value
        if case .success(let fresh) = result { cached = fresh }
        refreshing = nil
        return try result.get().token
    }

    package func invalidate(_ token: String) async {
        if cached?.token == token { cached = nil }
    }

    /// The assertion: `iss` the account, `aud` the token URI, valid for an hour from now.
    func assertion() throws(CredentialError) -> String {
        let issuedAt = Int64(now().timeIntervalSince1970)
        let claims: BSONDocument = [
            "iss": .string(account.clientEmail), "scope": .string(scopes.joined(separator: " ")),
            "aud": .string(tokenURI), "iat": .int64(issuedAt), "exp": .int64(issuedAt + 3600),
        ]
        return try JSONWebToken.sign(claims: claims, keyId: account.privateKeyId, key: account.signingKey)
    }

    private func fetch() async -> Result<(token: String, expiresAt: Date), PushError> {
        let assertion: String
        do {
            assertion = try self.assertion()
        } catch {
            return .failure(PushError(code: .unauthenticated, message: error.message))
        }
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        let request = HTTPRequest(
            method: .post, url: tokenURI,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: Array(body.utf8), httpVersion: httpVersion)
        let place = "the token endpoint \(CurlTransfer.redact(tokenURI)) (service account \(account.clientEmail))"
        let http = self.http
        let now = self.now
        return await retry.run { _ in
            let response: HTTPResponse
            switch await http.exchange(request) {
            case .success(let answer): response = answer
            case .failure(let error): return .transport(error, place)
            }
            let reply = (try? ExtendedJSON.parseValue(response.body))?.documentValue
            guard response.isSuccess else {
                let reason = [reply?["error"]?.stringValue, reply?["error_description"]?.stringValue]
                    .compactMap { $0 }.joined(separator: ": ")
                let error = PushError(
                    code: response.status == 429 || response.status >= 500 ? .unavailable : .unauthenticated,
                    message: "\(place) answered \(response.status)\(reason.isEmpty ? "" : ": \(reason)")",
                    httpStatus: response.status)
                if response.status == 429 || response.status >= 500 {
                    return .retry(error, retryAfter: RetryAfter.delay(response.headers["Retry-After"]))
                }
                return .failure(error)
            }
            guard let token = reply?["access_token"]?.stringValue, !token.isEmpty else {
                return .failure(
                    PushError(
                        code: .unauthenticated, message: "\(place) answered without an access_token",
                        httpStatus: response.status))
            }
            let lifetime = reply?["expires_in"]?.doubleValue ?? 3600
            return .success((token, now().addingTimeInterval(lifetime)))
        }
    }
}
