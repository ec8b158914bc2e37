import BSON
import Foundation
import Messaging
import Synchronization
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct FCMClientTests {
    static let sendPath = "/v1/projects/demo/messages:send"

    /// A client of `server` (as its FCM, Instance ID and token endpoint) with recorded retry waits.
    static func client(
        _ server: ScriptedHTTPServer, waits: RecordedWaits = RecordedWaits(), attempts: Int = 5,
        totalTime: Duration = .seconds(60), http: HTTPClient.Configuration = HTTPClient.Configuration()
    ) throws -> FCMClient {
        server.setFallback(FCMAnswers.token, for: "/oauth2/token")
        return try FCMClient(
            serviceAccount: TestCredentials.serviceAccount(tokenURI: "https://oauth2.googleapis.com/token"),
            configuration: FCMClient.Configuration(
                endpoints: .emulator(server.url), retry: waits.policy(attempts: attempts, totalTime: totalTime),
                http: http))
    }

    /// Answers each send with a name made of its token; tokens named in `errors` get that answer instead.
    static func tokenResponder(
        _ errors: [String: ScriptedHTTPServer.Response] = [:]
    ) -> @Sendable (ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Response? {
        { request in
            guard request.path == sendPath, let token = request.json?.value(atPath: "message.token")?.stringValue
            else { return nil }
            return errors[token] ?? FCMAnswers.name("m-\(token)")
        }
    }

    @Test func sendPostsTheMessageWithABearerTokenAndReturnsItsName() async throws {
        let server = try ScriptedHTTPServer()
        server.setFallback(FCMAnswers.name("1"), for: Self.sendPath)
        let client = try Self.client(server)
        let message = PushMessage(
            target: .topic("books"), notification: PushNotification(title: "New book", body: "Dune"))
        #expect(try await client.send(message) == "projects/demo/messages/1")
        #expect(try await client.send(message, validateOnly: true) == "projects/demo/messages/1")

        let sends = server.requests(to: Self.sendPath)
        #expect(sends.count == 2)
        #expect(sends[0].method == "POST")
        #expect(sends[0].headers["authorization"] == "Bearer tok-1")
        #expect(sends[0].headers["content-type"] == "application/json")
        #expect(sends[0].text == #"{"message":{"notification":{"title":"New book","body":"Dune"},"topic":"books"}}"#)
        #expect(sends[1].json?["validate_only"] == true)
        // One token for both sends.
        #expect(server.requests(to: "/oauth2/token").count == 1)
    }

    @Test func invalidMessagesAreRefusedBeforeSending() async throws {
        let server = try ScriptedHTTPServer()
        let client = try Self.client(server)
        await #expect {
            try await client.send(PushMessage(target: .topic("no spaces allowed")))
        } throws: { error in
            (error as? PushError)?.code == .invalidArgument
        }
        #expect(server.requests.isEmpty)
    }

    @Test func multicastReportsEachTokenInOrderAndWhichToDelete() async throws {
        let server = try ScriptedHTTPServer(
            responder: Self.tokenResponder([
                "gone": FCMAnswers.error(404, "NOT_FOUND", "Requested entity was not found.", fcmCode: "UNREGISTERED"),
                "junk": FCMAnswers.error(
                    400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                    fcmCode: "INVALID_ARGUMENT", field: "message.token"),
                "big": FCMAnswers.error(
                    400, "INVALID_ARGUMENT", "Android message is too big", fcmCode: "INVALID_ARGUMENT",
                    field: "message.android"),
            ]))
        let client = try Self.client(server)
        let response = try await client.sendEachForMulticast(
            MulticastMessage(tokens: ["a", "gone", "b", "junk", "big"], data: ["bookId": "42"]))
        #expect(response.results.map(\.token) == ["a", "gone", "b", "junk", "big"])
        #expect(
            response.results.map(\.messageName) == [
                "projects/demo/messages/m-a", nil, "projects/demo/messages/m-b", nil, nil,
            ])
        #expect(response.results.map(\.error?.code) == [nil, .unregistered, nil, .invalidArgument, .invalidArgument])
        #expect(response.results[3].error?.field == "message.token")
        #expect(response.results[1].error?.httpStatus == 404)
        #expect(response.successCount == 2 && response.failureCount == 3)
        // The message was too big for one platform: the token is fine and stays.
        #expect(response.tokensToDelete == ["gone", "junk"])
        // Errors that retrying cannot fix were sent once.
        #expect(server.requests(to: Self.sendPath).count == 5)
    }

    @Test(
        arguments: [
            (403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH", PushError.Code.senderIdMismatch),
            (401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR", .thirdPartyAuthError),
            (400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", .invalidArgument),
            (404, "NOT_FOUND", "UNREGISTERED", .unregistered),
            (404, "NOT_FOUND", nil, .notFound),
            (403, "PERMISSION_DENIED", nil, .permissionDenied),
        ] as [(Int, String, String?, PushError.Code)])
    func permanentErrorsAreTypedAndNotRetried(status: Int, canonical: String, fcmCode: String?, code: PushError.Code)
        async throws
    {
        let server = try ScriptedHTTPServer()
        server.setFallback(FCMAnswers.error(status, canonical, "refused", fcmCode: fcmCode), for: Self.sendPath)
        let waits = RecordedWaits()
        let client = try Self.client(server, waits: waits)
        await #expect(throws: PushError(code: code, message: "refused", httpStatus: status)) {
            try await client.send(PushMessage(target: .token("t")))
        }
        #expect(server.requests(to: Self.sendPath).count == 1)
        #expect(waits.all.isEmpty)
    }

    @Test func passingFailuresAreRetriedHonouringRetryAfter() async throws {
        let server = try ScriptedHTTPServer()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let before = Date()
        let inTwentySeconds = formatter.string(from: before.addingTimeInterval(20))
        let retryDate = try #require(formatter.date(from: inTwentySeconds))
        server.enqueue(
            FCMAnswers.error(
                429, "RESOURCE_EXHAUSTED", "Quota exceeded", fcmCode: "QUOTA_EXCEEDED", headers: [("Retry-After", "7")]),
            for: Self.sendPath)
        server.enqueue(
            FCMAnswers.error(
                503, "UNAVAILABLE", "The service is unavailable", headers: [("Retry-After", inTwentySeconds)]),
            for: Self.sendPath)
        server.enqueue(FCMAnswers.error(500, "INTERNAL", "Internal error", fcmCode: "INTERNAL"), for: Self.sendPath)
        server.enqueue(FCMAnswers.name("4"), for: Self.sendPath)
        server.setFallback(FCMAnswers.name("sent-twice"), for: Self.sendPath)
        let waits = RecordedWaits()
        let client = try Self.client(server, waits: waits)

        #expect(try await client.send(PushMessage(target: .token("t"))) == "projects/demo/messages/4")
        let after = Date()
        // Sent until accepted, then never again.
        #expect(server.requests(to: Self.sendPath).count == 4)
        let recorded = waits.all
        #expect(recorded.count == 3)
        #expect(recorded.first == .seconds(7))
        // The wait lasts until the date, however long the exchange before it took.
        #expect(
            recorded.count == 3 && recorded[1] >= .seconds(retryDate.timeIntervalSince(after))
                && recorded[1] <= .seconds(retryDate.timeIntervalSince(before)))
        // No Retry-After: full jitter under the third retry's ceiling (100 ms · 2²).
        #expect(recorded.count == 3 && recorded[2] >= .zero && recorded[2] <= .milliseconds(400))
    }

    @Test func attemptsAreBounded() async throws {
        let server = try ScriptedHTTPServer()
        server.setFallback(FCMAnswers.error(503, "UNAVAILABLE", "The service is unavailable"), for: Self.sendPath)
        let waits = RecordedWaits()
        let client = try Self.client(server, waits: waits, attempts: 3)
        await #expect(
            throws: PushError(
                code: .unavailable, message: "The service is unavailable (gave up after 3 attempts)", httpStatus: 503)
        ) {
            try await client.send(PushMessage(target: .token("t")))
        }
        #expect(server.requests(to: Self.sendPath).count == 3)
        #expect(waits.all.count == 2)
    }

    @Test func aRetryAfterBeyondTheTotalTimeEndsTheSendAtOnce() async throws {
        let server = try ScriptedHTTPServer()
        server.setFallback(
            FCMAnswers.error(
                429, "RESOURCE_EXHAUSTED", "Quota exceeded", fcmCode: "QUOTA_EXCEEDED",
                headers: [("Retry-After", "3600")]), for: Self.sendPath)
        let waits = RecordedWaits()
        let client = try Self.client(server, waits: waits, totalTime: .seconds(60))
        await #expect(throws: PushError(code: .quotaExceeded, message: "Quota exceeded", httpStatus: 429)) {
            try await client.send(PushMessage(target: .token("t")))
        }
        #expect(server.requests(to: Self.sendPath).count == 1)
        #expect(waits.all.isEmpty)
    }

    @Test func connectionFailuresAreRetriedAsTransportErrors() async throws {
        let waits = RecordedWaits()
        let client = try FCMClient(
            projectId: "demo", accessTokens: StaticAccessToken(),
            configuration: FCMClient.Configuration(
                endpoints: .emulator("http://127.0.0.1:\(closedLoopbackPort())"), retry: waits.policy(attempts: 3)))
        await #expect {
            try await client.send(PushMessage(target: .token("t")))
        } throws: { error in
            guard let error = error as? PushError else { return false }
            return error.code == .transport && error.message.hasPrefix("FCM send to project demo: could not connect")
                && error.message.hasSuffix("(gave up after 3 attempts)")
        }
        #expect(waits.all.count == 2)
    }

    @Test func onlyTheFailedMessagesOfAMulticastAreSentAgain() async throws {
        let attempts = Mutex<[String: Int]>([:])
        let server = try ScriptedHTTPServer { request in
            guard let token = request.json?.value(atPath: "message.token")?.stringValue else { return nil }
            let attempt = attempts.withLock { counts -> Int in
                counts[token, default: 0] += 1
                return counts[token]!
            }
            if token.hasPrefix("flaky"), attempt == 1 {
                return FCMAnswers.error(503, "UNAVAILABLE", "The service is unavailable")
            }
            return FCMAnswers.name("m-\(token)")
        }
        let client = try Self.client(server)
        let tokens = (0..<30).map { $0 % 3 == 0 ? "flaky\($0)" : "steady\($0)" }
        let response = try await client.sendEachForMulticast(MulticastMessage(tokens: tokens, data: ["k": "v"]))
        #expect(response.successCount == 30)
        #expect(response.results.map(\.messageName) == tokens.map { "projects/demo/messages/m-\($0)" })
        let counts = attempts.withLock { $0 }
        #expect(counts.count == 30)
        for token in tokens { #expect(counts[token] == (token.hasPrefix("flaky") ? 2 : 1)) }
    }

    @Test func concurrentSendsWaitForOneTokenRequest() async throws {
        let server = try ScriptedHTTPServer(responder: Self.tokenResponder())
        let client = try Self.client(server)
        server.setFallback(
            .json(200, #"{"access_token":"tok-1","expires_in":3599}"#, delay: .milliseconds(300)), for: "/oauth2/token")
        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for i in 0..<200 {
                group.addTask { try await client.send(PushMessage(target: .token("t\(i)"))) }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(names.count == 200)
        #expect(server.requests(to: "/oauth2/token").count == 1)
        #expect(server.requests(to: Self.sendPath).allSatisfy { $0.headers["authorization"] == "Bearer tok-1" })
    }

    @Test func aRefusedAccessTokenIsNotUsedAgain() async throws {
        let server = try ScriptedHTTPServer()
        let client = try Self.client(server)
        server.enqueue(.json(200, #"{"access_token":"stale","expires_in":3599}"#), for: "/oauth2/token")
        server.enqueue(
            FCMAnswers.error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."),
            for: Self.sendPath)
        server.setFallback(FCMAnswers.name("2"), for: Self.sendPath)
        await #expect(throws: PushError.self) { try await client.send(PushMessage(target: .token("t"))) }
        #expect(try await client.send(PushMessage(target: .token("t"))) == "projects/demo/messages/2")
        let authorizations = server.requests(to: Self.sendPath).map { $0.headers["authorization"] }
        #expect(authorizations == ["Bearer stale", "Bearer tok-1"])
    }

    @Test func concurrencyIsBoundedAndTheRestQueue() async throws {
        let server = try ScriptedHTTPServer()
        server.setFallback(
            .json(200, #"{"name":"projects/demo/messages/1"}"#, delay: .milliseconds(40)), for: Self.sendPath)
        let client = try Self.client(server, http: HTTPClient.Configuration(maximumConcurrentTransfers: 4))
        let response = try await client.sendEachForMulticast(
            MulticastMessage(tokens: (0..<40).map { "t\($0)" }, data: ["k": "v"]))
        #expect(response.successCount == 40)
        #expect(server.maximumInFlight <= 4)
        #expect(server.maximumInFlight >= 2)
    }

    @Test func sendEachReportsInvalidMessagesWithoutSendingThem() async throws {
        let server = try ScriptedHTTPServer(responder: Self.tokenResponder())
        server.setFallback(FCMAnswers.name("topic"), for: Self.sendPath)
        let client = try Self.client(server)
        let response = try await client.sendEach([
            PushMessage(target: .token("a")), PushMessage(target: .topic("bad topic")),
            PushMessage(target: .topic("books")),
        ])
        #expect(response.results.map(\.target) == [.token("a"), .topic("bad topic"), .topic("books")])
        #expect(response.results.map(\.error?.code) == [nil, .invalidArgument, nil])
        #expect(response.tokensToDelete.isEmpty)
        #expect(server.requests(to: Self.sendPath).count == 2)

        await #expect(throws: PushError.self) {
            try await client.sendEach(Array(repeating: PushMessage(target: .token("a")), count: 501))
        }
        await #expect(throws: PushError.self) { try await client.sendEach([]) }
    }

    @Test func topicSubscriptionsReportEachToken() async throws {
        let server = try ScriptedHTTPServer()
        let client = try Self.client(server)
        server.enqueue(.json(200, #"{"results":[{},{"error":"NOT_FOUND"},{}]}"#), for: "/iid/v1:batchAdd")
        let added = try await client.subscribeToTopic(["a", "gone", "c"], topic: "/topics/books")
        #expect(added.results == [.init(token: "a"), .init(token: "gone", error: "NOT_FOUND"), .init(token: "c")])
        #expect(added.successCount == 2 && added.failureCount == 1)

        let request = try #require(server.requests(to: "/iid/v1:batchAdd").first)
        #expect(request.headers["access_token_auth"] == "true")
        #expect(request.headers["authorization"] == "Bearer tok-1")
        #expect(request.json == ["to": "/topics/books", "registration_tokens": ["a", "gone", "c"]])

        server.enqueue(.json(200, #"{"results":[{}]}"#), for: "/iid/v1:batchRemove")
        let removed = try await client.unsubscribeFromTopic(["a"], topic: "books")
        #expect(removed.successCount == 1)
        #expect(server.requests(to: "/iid/v1:batchRemove").first?.json?["to"] == "/topics/books")

        await #expect(throws: PushError.self) { try await client.subscribeToTopic(["a"], topic: "no spaces") }
        await #expect(throws: PushError.self) { try await client.subscribeToTopic([], topic: "books") }
    }

    @Test func largeSubscriptionsAreSplitIntoThousands() async throws {
        let server = try ScriptedHTTPServer { request in
            guard request.path == "/iid/v1:batchAdd",
                let count = request.json?["registration_tokens"]?.arrayValue?.count
            else { return nil }
            let results = Array(repeating: "{}", count: count).joined(separator: ",")
            return .json(200, #"{"results":[\#(results)]}"#)
        }
        let client = try Self.client(server)
        let response = try await client.subscribeToTopic((0..<2500).map { "t\($0)" }, topic: "books")
        #expect(response.successCount == 2500)
        let sizes = server.requests(to: "/iid/v1:batchAdd").compactMap {
            $0.json?["registration_tokens"]?.arrayValue?.count
        }
        #expect(sizes == [1000, 1000, 500])
    }
}
