import BSON
import Foundation
import Messaging
import Synchronization
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct ServiceAccountTokenProviderTests {
    /// A clock the test moves by hand.
    final class TestClock: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_750_000_000))
        var now: Date { date.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    @Test func postsASignedJWTBearerAssertion() async throws {
        let server = try ScriptedHTTPServer()
        server.setFallback(FCMAnswers.token, for: "/oauth2/token")
        let account = try TestCredentials.serviceAccount(tokenURI: "\(server.url)/oauth2/token")
        let provider = ServiceAccountTokenProvider(account: account, http: try HTTPClient())
        #expect(try await provider.accessToken() == "tok-1")

        let request = try #require(server.requests(to: "/oauth2/token").first)
        #expect(request.method == "POST")
        #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
        let prefix = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="
        #expect(request.text.hasPrefix(prefix))
        let jwt = String(request.text.dropFirst(prefix.count))
        let verified = try #require(TestCredentials.verify(jwt: jwt, publicKeyPEM: account.signingKey.publicKeyPEM))
        #expect(verified.header == ["alg": "RS256", "typ": "JWT", "kid": "key-1"])
        #expect(verified.claims["iss"] == "push@demo.iam.gserviceaccount.com")
        #expect(verified.claims["aud"] == .string("\(server.url)/oauth2/token"))
        #expect(
            verified.claims["scope"]
                == "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/firebase.messaging")
        let issuedAt = try #require(verified.claims["iat"]?.doubleValue)
        #expect(verified.claims["exp"]?.doubleValue == issuedAt + 3600)
        // A different key's public half does not verify it.
        let other = try SigningKey(pem: TestCredentials.p256PrivateKeyPEM())
        #expect(TestCredentials.verify(jwt: jwt, publicKeyPEM: other.publicKeyPEM) == nil)
    }

    @Test func manyWaitersShareOneRefresh() async throws {
        let server = try ScriptedHTTPServer()
        server.setFallback(
            .json(200, #"{"access_token":"tok-1","expires_in":3599}"#, delay: .milliseconds(300)), for: "/oauth2/token")
        let account = try TestCredentials.serviceAccount(tokenURI: "\(server.url)/oauth2/token")
        let provider = ServiceAccountTokenProvider(account: account, http: try HTTPClient())
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { try await provider.accessToken() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tokens.count == 200 && Set(tokens) == ["tok-1"])
        #expect(server.requests(to: "/oauth2/token").count == 1)
    }

    @Test func tokensAreReplacedBeforeTheyExpire() async throws {
        let server = try ScriptedHTTPServer()
        server.enqueue(.json(200, #"{"access_token":"first","expires_in":3600}"#), for: "/oauth2/token")
        server.enqueue(.json(200, #"{"access_token":"second","expires_in":3600}"#), for: "/oauth2/token")
        let clock = TestClock()
        let account = try TestCredentials.serviceAccount(tokenURI: "\(server.url)/oauth2/token")
        let provider = ServiceAccountTokenProvider(
            account: account, http: try HTTPClient(), refreshMargin: .seconds(300), now: { clock.now })
        #expect(try await provider.accessToken() == "first")
        clock.advance(3000)
        #expect(try await provider.accessToken() == "first")
        // Within five minutes of expiry: replaced.
        clock.advance(301)
        #expect(try await provider.accessToken() == "second")
        #expect(server.requests(to: "/oauth2/token").count == 2)
        // Refused by a server (401): forgotten, fetched again.
        server.enqueue(.json(200, #"{"access_token":"third","expires_in":3600}"#), for: "/oauth2/token")
        await provider.invalidate("second")
        #expect(try await provider.accessToken() == "third")
    }

    @Test func refusedGrantsSayWhy() async throws {
        let server = try ScriptedHTTPServer()
        server.setFallback(
            .json(400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#),
            for: "/oauth2/token")
        let account = try TestCredentials.serviceAccount(tokenURI: "\(server.url)/oauth2/token")
        let provider = ServiceAccountTokenProvider(account: account, http: try HTTPClient())
        await #expect(
            throws: PushError(
                code: .unauthenticated,
                message:
                    "the token endpoint \(server.url)/oauth2/token (service account push@demo.iam.gserviceaccount.com) answered 400: invalid_grant: Invalid JWT Signature.",
                httpStatus: 400)
        ) {
            try await provider.accessToken()
        }
        #expect(server.requests(to: "/oauth2/token").count == 1)
    }
}
