import Foundation
import Messaging

/// The credentials of the FCM client that functions send through while an app is served in development: a
/// service account of the emulator's project whose `token_uri` is this server's `/oauth2/token`, so every send
/// makes the real OAuth2 exchange (signed assertion, cached token, refresh on 401) before reaching the emulator.
///
/// Its RSA key is made once per process, on a thread of its own, when the first token is requested: generating
/// one takes a few hundred milliseconds, which the first push after a start waits for. Made at start instead, it
/// would set OpenSSL up (about 2 MB resident) in every served app, including those that never push.
actor DevelopmentServiceAccount: AccessTokenProvider {
    static let key: Task<Result<Messaging.SigningKey, CredentialError>, Never> = Task {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    returning: Result { () throws(CredentialError) in try Messaging.SigningKey.generate(.rs256) })
            }
        }
    }

    static let clientEmail = "switchyard-development@localhost"

    private let project: String
    private let tokenURI: String
    private let http: HTTPClient
    private let retry: RetryPolicy
    private let httpVersion: HTTPVersion
    private var provider: ServiceAccountTokenProvider?

    init(project: String, tokenURI: String, http: HTTPClient, retry: RetryPolicy, httpVersion: HTTPVersion) {
        self.project = project
        self.tokenURI = tokenURI
        self.http = http
        self.retry = retry
        self.httpVersion = httpVersion
    }

    func accessToken() async throws(PushError) -> String {
        try await tokens().accessToken()
    }

    func invalidate(_ token: String) async {
        await provider?.invalidate(token)
    }

    private func tokens() async throws(PushError) -> ServiceAccountTokenProvider {
        if let provider { return provider }
        let key: Messaging.SigningKey
        switch await Self.key.value {
        case .success(let made): key = made
        case .failure(let error): throw PushError(code: .unauthenticated, message: error.message)
        }
        if let provider { return provider }  // made by another caller while this one waited
        let account: ServiceAccount
        do {
            account = try ServiceAccount(
                projectId: project, clientEmail: Self.clientEmail, signingKey: key, tokenURI: tokenURI)
        } catch {
            throw PushError(code: .unauthenticated, message: error.message)
        }
        let made = ServiceAccountTokenProvider(account: account, http: http, retry: retry, httpVersion: httpVersion)
        provider = made
        return made
    }
}
