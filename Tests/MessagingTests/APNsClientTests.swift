import BSON
import Foundation
import Messaging
import Synchronization
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct APNsClientTests {
    final class TestClock: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_750_000_000))
        var now: Date { date.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    struct Fixture {
        let server: ScriptedHTTPServer
        let client: APNsClient
        let key: SigningKey
        let clock = TestClock()
        let waits = RecordedWaits()

        init() throws {
            server = try ScriptedHTTPServer()
            let pem = TestCredentials.p256PrivateKeyPEM()
            key = try SigningKey(pem: pem)
            let clock = self.clock
            client = try APNsClient(
                keyId: "ABC123DEFG", teamId: "TEAM456789", privateKey: pem,
                configuration: APNsClient.Configuration(
                    baseURL: server.url, defaultTopic: "com.example.books", retry: waits.policy(),
                    now: { clock.now }))
        }

        var deviceRequests: [ScriptedHTTPServer.Request] {
            server.requests.filter { $0.path.hasPrefix("/3/device/") }
        }

        /// The provider token of a request, verified with the key's public half.
        func verifiedClaims(_ request: ScriptedHTTPServer.Request) -> (header: BSONDocument, claims: BSONDocument)? {
            guard let authorization = request.headers["authorization"], authorization.hasPrefix("bearer ") else {
                return nil
            }
            return TestCredentials.verify(jwt: String(authorization.dropFirst(7)), publicKeyPEM: key.publicKeyPEM)
        }
    }

    static let ok = ScriptedHTTPServer.Response(
        status: 200, headers: [("apns-id", "EC1BF194-B3B2-424D-A4D9-8A3F5D1E4C3B")])

    @Test func sendsTheHeadersAndASignedProviderToken() async throws {
        let fixture = try Fixture()
        fixture.server.enqueue(Self.ok, for: "/3/device/a1b2")
        let id = try await fixture.client.send(
            APNsNotification(
                deviceToken: "a1b2", payload: ["aps": ["alert": ["title": "Dune"]]], pushType: "alert", priority: 10,
                expiration: 1_750_003_600, collapseId: "book-42", id: "EC1BF194-B3B2-424D-A4D9-8A3F5D1E4C3B"))
        #expect(id == "EC1BF194-B3B2-424D-A4D9-8A3F5D1E4C3B")

        let request = try #require(fixture.deviceRequests.first)
        #expect(request.method == "POST" && request.path == "/3/device/a1b2")
        #expect(request.headers["apns-topic"] == "com.example.books")
        #expect(request.headers["apns-push-type"] == "alert")
        #expect(request.headers["apns-priority"] == "10")
        #expect(request.headers["apns-expiration"] == "1750003600")
        #expect(request.headers["apns-collapse-id"] == "book-42")
        #expect(request.headers["apns-id"] == "EC1BF194-B3B2-424D-A4D9-8A3F5D1E4C3B")
        #expect(request.text == #"{"aps":{"alert":{"title":"Dune"}}}"#)
        let verified = try #require(fixture.verifiedClaims(request))
        #expect(verified.header == ["alg": "ES256", "kid": "ABC123DEFG"])
        #expect(verified.claims["iss"] == "TEAM456789")
        #expect(verified.claims["iat"]?.doubleValue == 1_750_000_000)
    }

    @Test func theProviderTokenIsReusedForFiftyMinutes() async throws {
        let fixture = try Fixture()
        fixture.server.setFallback(Self.ok, for: "/3/device/t")
        let notification = APNsNotification(deviceToken: "t", payload: ["aps": ["badge": 1]])
        _ = try await fixture.client.send(notification)
        fixture.clock.advance(49 * 60)
        _ = try await fixture.client.send(notification)
        fixture.clock.advance(2 * 60)
        _ = try await fixture.client.send(notification)
        let issued = fixture.deviceRequests.compactMap { fixture.verifiedClaims($0)?.claims["iat"]?.doubleValue }
        #expect(issued == [1_750_000_000, 1_750_000_000, 1_750_000_000 + 51 * 60])
    }

    @Test func errorsCarryApplesReasonAndAreNotRetried() async throws {
        let fixture = try Fixture()
        fixture.server.enqueue(.json(400, #"{"reason":"BadDeviceToken"}"#), for: "/3/device/bad")
        fixture.server.enqueue(
            .json(410, #"{"reason":"Unregistered","timestamp":1749000000000}"#), for: "/3/device/gone")
        await #expect {
            try await fixture.client.send(APNsNotification(deviceToken: "bad", payload: ["aps": [:]]))
        } throws: { error in
            guard let error = error as? APNsError else { return false }
            return error.reason == .badDeviceToken && error.status == 400 && error.pushError.invalidatesToken
        }
        await #expect {
            try await fixture.client.send(APNsNotification(deviceToken: "gone", payload: ["aps": [:]]))
        } throws: { error in
            guard let error = error as? APNsError else { return false }
            return error.reason == .unregistered && error.timestamp == Date(timeIntervalSince1970: 1_749_000_000)
                && error.pushError.code == .unregistered
        }
        #expect(fixture.deviceRequests.count == 2)
        #expect(fixture.waits.all.isEmpty)
    }

    @Test func anExpiredProviderTokenIsReplacedAndTheSendTriedOnceMore() async throws {
        let fixture = try Fixture()
        fixture.server.enqueue(.json(403, #"{"reason":"ExpiredProviderToken"}"#), for: "/3/device/t")
        fixture.server.enqueue(Self.ok, for: "/3/device/t")
        _ = try await fixture.client.send(APNsNotification(deviceToken: "t", payload: ["aps": [:]]))
        let tokens = fixture.deviceRequests.map { $0.headers["authorization"] }
        #expect(tokens.count == 2 && tokens[0] != tokens[1])

        // Once only: a second refusal is the answer.
        fixture.server.setFallback(.json(403, #"{"reason":"ExpiredProviderToken"}"#), for: "/3/device/u")
        await #expect {
            try await fixture.client.send(APNsNotification(deviceToken: "u", payload: ["aps": [:]]))
        } throws: { error in
            (error as? APNsError)?.reason == .expiredProviderToken
                && (error as? APNsError)?.pushError.code == .thirdPartyAuthError
        }
        #expect(fixture.server.requests(to: "/3/device/u").count == 2)
    }

    @Test func throttlingIsRetriedAfterABackoff() async throws {
        let fixture = try Fixture()
        fixture.server.enqueue(.json(429, #"{"reason":"TooManyRequests"}"#), for: "/3/device/t")
        fixture.server.enqueue(
            .json(503, #"{"reason":"ServiceUnavailable"}"#, headers: [("Retry-After", "3")]), for: "/3/device/t")
        fixture.server.enqueue(Self.ok, for: "/3/device/t")
        _ = try await fixture.client.send(APNsNotification(deviceToken: "t", payload: ["aps": [:]]))
        #expect(fixture.deviceRequests.count == 3)
        #expect(fixture.waits.all.count == 2 && fixture.waits.all.last == .seconds(3))
    }

    @Test func fcmShapedMessagesAreLaidOutAsFCMDoesForAnIPhone() async throws {
        let fixture = try Fixture()
        fixture.server.setFallback(Self.ok, for: "/3/device/phone")
        fixture.server.setFallback(
            .json(410, #"{"reason":"Unregistered","timestamp":1749000000000}"#), for: "/3/device/old")
        let messaging: any PushMessaging = fixture.client
        let message = PortableNotification(
            title: "New book added", body: "Dune", type: "book_added", collapseId: "42", badge: 1)
        let response = try await messaging.sendEachForMulticast(message.multicast(to: ["phone", "old"]))
        #expect(response.results.map(\.error?.code) == [nil, .unregistered])
        #expect(response.tokensToDelete == ["old"])

        let request = try #require(fixture.server.requests(to: "/3/device/phone").first)
        let payload = try #require(request.json)
        #expect(payload.value(atPath: "aps.alert") == ["title": "New book added", "body": "Dune"])
        #expect(payload.value(atPath: "aps.badge") == 1)
        #expect(payload["type"] == "book_added")
        #expect(request.headers["apns-collapse-id"] == "42")
        #expect(request.headers["apns-push-type"] == "alert")
        #expect(request.headers["apns-id"]?.count == 36)

        await #expect(throws: PushError.self) { try await messaging.send(PushMessage(target: .topic("books"))) }
        #expect(fixture.server.requests.count == 2)
    }
}
