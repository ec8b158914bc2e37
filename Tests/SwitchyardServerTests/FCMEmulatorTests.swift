import BSON
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

@Suite(.timeLimit(.minutes(1))) struct FCMEmulatorTests {
    /// An emulator for project `books-app` on loopback, with a client.
    struct Fixture {
        let outbox: OutboxMessaging
        let emulator: FCMEmulator
        let server: HTTPServer
        let client: HTTPClient

        init(tokenLifetime: Duration = .seconds(3600)) throws {
            outbox = OutboxMessaging(project: "books-app", senderId: "1234")
            emulator = FCMEmulator(outbox: outbox, tokenLifetime: tokenLifetime)
            var router = Router()
            router.add(emulator.routes)
            server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), router: router)
            client = try HTTPClient()
        }

        var tokenURI: String { "\(server.baseURL)/oauth2/token" }

        func post(_ path: String, json: String, token: String?, headers: [String: String] = [:]) async throws
            -> HTTPResponse
        {
            var fields = headers
            fields["Content-Type"] = "application/json"
            if let token { fields["Authorization"] = "Bearer \(token)" }
            return try await client.post(
                url: server.baseURL + path, body: Array(json.utf8),
                headers: HTTPHeaders(fields.map { ($0.key, $0.value) }))
        }

        func postForm(_ form: String) async throws -> HTTPResponse {
            try await client.post(
                url: tokenURI, body: Array(form.utf8),
                headers: ["Content-Type": "application/x-www-form-urlencoded"])
        }

        /// An access token through the JWT-bearer grant, as google-auth gets one.
        func accessToken(serviceAccount: String = "sender@books-app.iam.gserviceaccount.com") async throws -> String {
            let assertion = FCMEmulatorTests.assertion(["iss": .string(serviceAccount), "aud": .string(tokenURI)])
            let response = try await postForm(
                "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)")
            return try #require(response.json?.documentValue?["access_token"]?.stringValue)
        }

        func send(_ message: String, token: String, project: String = "books-app") async throws -> HTTPResponse {
            try await post("/v1/projects/\(project)/messages:send", json: message, token: token)
        }
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// A well-formed RS256 assertion (the emulator does not verify the signature), with `claims` over the defaults.
    static func assertion(_ claims: BSONDocument, header: BSONDocument = ["alg": "RS256", "typ": "JWT"]) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        var all: BSONDocument = [
            "iss": "sender@books-app.iam.gserviceaccount.com",
            "scope": "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/firebase",
            "aud": "https://oauth2.googleapis.com/token", "iat": .int64(now), "exp": .int64(now + 3600),
        ]
        for (key, value) in claims { all[key] = value }
        let signature = [UInt8](repeating: 7, count: 256)
        return [header.extendedJSONBytes(mode: .relaxed), all.extendedJSONBytes(mode: .relaxed), signature]
            .map(base64URL).joined(separator: ".")
    }

    /// The `error` object of a Google error body.
    func googleError(_ response: HTTPResponse) throws -> BSONDocument {
        try #require(response.json?.documentValue?["error"]?.documentValue)
    }

    func fcmErrorCode(_ response: HTTPResponse) throws -> String? {
        let details = try googleError(response)["details"]?.arrayValue ?? []
        return details.compactMap(\.documentValue).first {
            $0["@type"] == "type.googleapis.com/google.firebase.fcm.v1.FcmError"
        }?["errorCode"]?.stringValue
    }

    // MARK: OAuth2

    @Test func aWellFormedAssertionGetsABearerTokenThatSends() async throws {
        let fixture = try Fixture()
        let assertion = Self.assertion(["aud": .string(fixture.tokenURI)])
        let response = try await fixture.postForm(
            "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=\(assertion)")
        #expect(response.status == 200)
        let body = try #require(response.json?.documentValue)
        #expect(body["expires_in"] == 3600)
        #expect(body["token_type"] == "Bearer")
        let token = try #require(body["access_token"]?.stringValue)
        #expect(token.hasPrefix("ya29."))
        #expect(try await fixture.send(#"{"message":{"token":"t"}}"#, token: token).status == 200)
    }

    @Test func badGrantsAreRefusedAsGooglesTokenEndpointRefusesThem() async throws {
        let fixture = try Fixture()
        let grant = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="
        let now = Int64(Date().timeIntervalSince1970)
        let cases: [(form: String, error: String, mentions: String)] = [
            ("grant_type=client_credentials", "unsupported_grant_type", "client_credentials"),
            ("assertion=x", "invalid_request", "grant_type"),
            (String(grant.dropLast("&assertion=".count)), "invalid_request", "assertion"),
            (grant + "not-a-jwt", "invalid_grant", "three"),
            (grant + Self.assertion([:], header: ["alg": "HS256"]), "invalid_grant", "RS256"),
            (grant + Self.assertion(["iss": ""]), "invalid_grant", "iss"),
            (grant + Self.assertion(["scope": ""]), "invalid_scope", "scope"),
            (
                grant + Self.assertion(["scope": "https://www.googleapis.com/auth/datastore"]), "invalid_scope",
                "firebase.messaging"
            ),
            (grant + Self.assertion(["aud": "books"]), "invalid_grant", "audience"),
            (grant + Self.assertion(["exp": .int64(now + 7200)]), "invalid_grant", "short-lived"),
            (grant + Self.assertion(["iat": .int64(now - 7200), "exp": .int64(now - 3600)]), "invalid_grant", "iat"),
            (grant + Self.assertion(["iat": "yesterday"]), "invalid_grant", "iat"),
            ("grant_type=%zz", "invalid_request", "urlencoded"),
        ]
        for (form, error, mentions) in cases {
            let response = try await fixture.postForm(form)
            #expect(response.status == 400, "\(form)")
            let body = try #require(response.json?.documentValue)
            #expect(body["error"]?.stringValue == error, "\(form)")
            #expect(body["error_description"]?.stringValue?.contains(mentions) == true, "\(form): \(body)")
        }
        // A token whose signature segment cannot be an RSA signature.
        let parts = Self.assertion([:]).split(separator: ".")
        let truncated = "\(parts[0]).\(parts[1]).\(Self.base64URL([1, 2, 3]))"
        let response = try await fixture.postForm(grant + truncated)
        #expect(response.json?.documentValue?["error_description"] == "Invalid JWT Signature.")
    }

    // MARK: messages:send

    @Test func aSendIsAnsweredWithItsNameAndRecordedAsADeviceReceivesIt() async throws {
        let fixture = try Fixture()
        let token = try await fixture.accessToken()
        let response = try await fixture.send(
            #"{"message":{"token":"phone","notification":{"title":"New book","body":"Dune"},"data":{"id":"7"}}}"#,
            token: token)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        let name = try #require(response.json?.documentValue?["name"]?.stringValue)
        let entry = try #require(fixture.outbox.entries.first)
        #expect(fixture.outbox.entries.count == 1)
        #expect(entry.name == name && name.hasPrefix("projects/books-app/messages/"))
        #expect(entry.target == .token("phone"))
        #expect(entry.reachedTokens == ["phone"])
        #expect(entry.payload?["notification"] == ["title": "New book", "body": "Dune"])
        #expect(entry.payload?["data"] == ["id": "7"])
        #expect(entry.payload?["from"] == "1234")
    }

    @Test func validateOnlyIsCheckedButNotRecorded() async throws {
        let fixture = try Fixture()
        let token = try await fixture.accessToken()
        let response = try await fixture.send(#"{"message":{"topic":"books"},"validate_only":true}"#, token: token)
        #expect(response.json?.documentValue == ["name": "projects/books-app/messages/fake_message_id"])
        let invalid = try await fixture.send(#"{"message":{"topic":"no spaces"},"validate_only":true}"#, token: token)
        #expect(invalid.status == 400)
        #expect(fixture.outbox.entries.isEmpty)
    }

    @Test func sendingNeedsAnAccessTokenTheEmulatorIssued() async throws {
        let fixture = try Fixture()
        let message = #"{"message":{"token":"t"}}"#
        let missing = try await fixture.post("/v1/projects/books-app/messages:send", json: message, token: nil)
        #expect(missing.status == 401)
        #expect(missing.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
        let error = try googleError(missing)
        #expect(error["code"] == 401 && error["status"] == "UNAUTHENTICATED")
        #expect(
            error["message"]?.stringValue?.hasPrefix("Request is missing required authentication credential") == true)
        #expect(error["details"]?.arrayValue?.first?.documentValue?["reason"] == "CREDENTIALS_MISSING")

        let forged = try await fixture.send(message, token: "ya29.made-up")
        #expect(forged.status == 401)
        #expect(try googleError(forged)["status"] == "UNAUTHENTICATED")

        let shortLived = try Fixture(tokenLifetime: .zero)
        let expired = try await shortLived.send(message, token: try await shortLived.accessToken())
        #expect(expired.status == 401)
        #expect(
            try googleError(expired)["details"]?.arrayValue?.first?.documentValue?["reason"] == "ACCESS_TOKEN_EXPIRED")
        #expect(fixture.outbox.entries.isEmpty && shortLived.outbox.entries.isEmpty)
    }

    @Test func anotherProjectIsNotFoundAndAnotherProjectsCredentialsAreDenied() async throws {
        let fixture = try Fixture()
        let message = #"{"message":{"token":"t"}}"#
        let unbound = fixture.emulator.issueAccessToken()
        let elsewhere = try await fixture.send(message, token: unbound, project: "other-app")
        #expect(elsewhere.status == 404)
        #expect(try googleError(elsewhere)["status"] == "NOT_FOUND")
        #expect(try fcmErrorCode(elsewhere) == nil)

        let foreign = try await fixture.accessToken(serviceAccount: "sender@other-app.iam.gserviceaccount.com")
        let denied = try await fixture.send(message, token: foreign)
        #expect(denied.status == 403)
        let error = try googleError(denied)
        #expect(error["status"] == "PERMISSION_DENIED")
        #expect(error["message"]?.stringValue?.contains("projects/books-app") == true)
        #expect(fixture.outbox.entries.isEmpty)
    }

    @Test func malformedJSONIs400WithItsPosition() async throws {
        let fixture = try Fixture()
        let token = fixture.emulator.issueAccessToken()
        let response = try await fixture.send("{\"message\": {\"token\": \"t\",\n  }", token: token)
        #expect(response.status == 400)
        let error = try googleError(response)
        #expect(error["code"] == 400 && error["status"] == "INVALID_ARGUMENT")
        let message = try #require(error["message"]?.stringValue)
        #expect(message.hasPrefix("Invalid JSON payload received. 2:"))
        let violation = error["details"]?.arrayValue?.first?.documentValue
        #expect(violation?["@type"] == "type.googleapis.com/google.rpc.BadRequest")
        #expect(violation?["fieldViolations"]?.arrayValue?.first?.documentValue?["description"]?.stringValue == message)

        let twoTargets = try await fixture.send(#"{"message":{"token":"t","topic":"books"}}"#, token: token)
        #expect(twoTargets.status == 400)
        #expect(try fcmErrorCode(twoTargets) == "INVALID_ARGUMENT")
        #expect(fixture.outbox.entries.isEmpty)
    }

    // MARK: Faults

    @Test func unregisteredTokensAnswer404InFCMsErrorFormat() async throws {
        let fixture = try Fixture()
        fixture.emulator.faults.unregisteredTokens = ["gone"]
        let response = try await fixture.send(#"{"message":{"token":"gone"}}"#, token: try await fixture.accessToken())
        #expect(response.status == 404)
        #expect(
            response.text
                == #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#
        )
        #expect(fixture.outbox.entries.map(\.error?.code) == [.unregistered])
    }

    @Test func quotaExceededAnswers429WithRetryAfter() async throws {
        let fixture = try Fixture()
        fixture.emulator.faults = FaultSettings(quotaExceeded: 1, retryAfterSeconds: 7)
        let token = fixture.emulator.issueAccessToken()
        let refused = try await fixture.send(#"{"message":{"token":"t"}}"#, token: token)
        #expect(refused.status == 429)
        #expect(refused.headers["Retry-After"] == "7")
        #expect(try googleError(refused)["status"] == "RESOURCE_EXHAUSTED")
        #expect(try fcmErrorCode(refused) == "QUOTA_EXCEEDED")
        #expect(try await fixture.send(#"{"message":{"token":"t"}}"#, token: token).status == 200)
        #expect(fixture.emulator.faults.quotaExceeded == 0)
    }

    @Test func aBurstOf503sThenDeliveryAnd500sForInternalErrors() async throws {
        let fixture = try Fixture()
        fixture.emulator.faults = FaultSettings(unavailable: 2, internalErrors: 1)
        let token = fixture.emulator.issueAccessToken()
        var statuses: [Int] = []
        var codes: [String?] = []
        for _ in 0..<4 {
            let response = try await fixture.send(#"{"message":{"topic":"books"}}"#, token: token)
            statuses.append(response.status)
            codes.append(response.status == 200 ? nil : try fcmErrorCode(response))
        }
        #expect(statuses == [503, 503, 500, 200])
        #expect(codes == ["UNAVAILABLE", "UNAVAILABLE", "INTERNAL", nil])
        #expect(fixture.outbox.entries.map(\.isDelivered) == [false, false, false, true])
    }

    @Test func latencyDelaysTheAnswer() async throws {
        let fixture = try Fixture()
        fixture.emulator.faults.latency = .milliseconds(300)
        let token = fixture.emulator.issueAccessToken()
        let start = ContinuousClock.now
        let response = try await fixture.send(#"{"message":{"token":"t"}}"#, token: token)
        // A lower bound only: the injected delay is the least the answer can take.
        #expect(ContinuousClock.now - start >= .milliseconds(300))
        #expect(response.status == 200)
    }

    @Test func connectionResetsDropTheRequestUnrecorded() async throws {
        let fixture = try Fixture()
        fixture.emulator.faults.connectionResets = 1
        let token = fixture.emulator.issueAccessToken()
        await #expect(throws: HTTPClientError.self) {
            try await fixture.send(#"{"message":{"token":"t"}}"#, token: token)
        }
        #expect(fixture.outbox.entries.isEmpty)
        #expect(fixture.emulator.faults.connectionResets == 0)
        #expect(try await fixture.send(#"{"message":{"token":"t"}}"#, token: token).status == 200)
        #expect(fixture.outbox.entries.count == 1)
    }

    // MARK: Topic management

    @Test func subscriptionsDecideWhichTokensTopicAndConditionMessagesReach() async throws {
        let fixture = try Fixture()
        fixture.emulator.faults.unregisteredTokens = ["gone"]
        let token = try await fixture.accessToken()
        let added = try await fixture.post(
            "/iid/v1:batchAdd", json: #"{"to":"/topics/books","registration_tokens":["phone","tablet","gone",""]}"#,
            token: token, headers: ["access_token_auth": "true"])
        #expect(added.status == 200)
        #expect(added.text == #"{"results":[{},{},{"error":"NOT_FOUND"},{"error":"INVALID_ARGUMENT"}]}"#)
        _ = try await fixture.post(
            "/iid/v1:batchAdd", json: #"{"to":"/topics/muted","registration_tokens":["tablet"]}"#, token: token)
        let device = try await fixture.client.post(
            url: "\(fixture.server.baseURL)/iid/v1/watch/rel/topics/books", body: [],
            headers: ["Authorization": "key=legacy-server-key"])
        #expect(device.status == 200 && device.text == "{}")
        #expect(fixture.emulator.topics.tokens(subscribedTo: "books") == ["phone", "tablet", "watch"])

        #expect(try await fixture.send(#"{"message":{"topic":"books"}}"#, token: token).status == 200)
        let condition = #"'books' in topics && !('muted' in topics)"#
        let conditionJSON = #"{"message":{"condition":"\#(condition)"}}"#
        #expect(try await fixture.send(conditionJSON, token: token).status == 200)
        let removed = try await fixture.post(
            "/iid/v1:batchRemove", json: #"{"to":"/topics/books","registration_tokens":["phone"]}"#, token: token)
        #expect(removed.text == #"{"results":[{}]}"#)
        #expect(try await fixture.send(#"{"message":{"topic":"books"}}"#, token: token).status == 200)

        let entries = fixture.outbox.entries
        #expect(entries.map(\.target) == [.topic("books"), .condition(condition), .topic("books")])
        #expect(
            entries.map(\.reachedTokens) == [["phone", "tablet", "watch"], ["phone", "watch"], ["tablet", "watch"]])
        #expect(entries[0].payload?["from"] == "/topics/books")
    }

    @Test func topicManagementRefusesWhatIIDRefuses() async throws {
        let fixture = try Fixture()
        let body = #"{"to":"/topics/books","registration_tokens":["a"]}"#
        let unauthenticated = try await fixture.post("/iid/v1:batchAdd", json: body, token: nil)
        #expect(unauthenticated.status == 401)
        #expect(unauthenticated.json?.documentValue?["error"] == "UNAUTHENTICATED")
        let token = fixture.emulator.issueAccessToken()
        for bad in [
            "[1]", #"{"to":"books","registration_tokens":["a"]}"#,
            #"{"to":"/topics/no spaces","registration_tokens":["a"]}"#,
            #"{"to":"/topics/books","registration_tokens":[]}"#, #"{"to":"/topics/books"}"#,
        ] {
            let response = try await fixture.post("/iid/v1:batchRemove", json: bad, token: token)
            #expect(response.status == 400, "\(bad)")
            #expect(response.json?.documentValue?["error"] == "INVALID_ARGUMENT", "\(bad)")
        }
        let device = try await fixture.post("/iid/v1/phone/rel/topics/books", json: "", token: nil)
        #expect(device.status == 401)
        #expect(fixture.emulator.topics.all.isEmpty)
    }

    @Test func fcmV1TopicSubscriptionsOneTokenPerRequest() async throws {
        let fixture = try Fixture()
        fixture.emulator.faults.unregisteredTokens = ["gone"]
        let token = try await fixture.accessToken()
        let base = "/v1/projects/books-app/registrations"
        let created = try await fixture.post(
            "\(base)/phone/topicSubscriptions?topic_name=books", json: "{}", token: token)
        #expect(created.status == 200)
        #expect(
            created.json?.documentValue == ["name": "projects/books-app/registrations/phone/topicSubscriptions/books"])
        let again = try await fixture.post(
            "\(base)/phone/topicSubscriptions?topic_name=books", json: "{}", token: token)
        #expect(again.status == 409)
        #expect(try googleError(again)["status"] == "ALREADY_EXISTS")
        let gone = try await fixture.post("\(base)/gone/topicSubscriptions?topic_name=books", json: "{}", token: token)
        #expect(gone.status == 404)
        #expect(try fcmErrorCode(gone) == "UNREGISTERED")
        let badTopic = try await fixture.post(
            "\(base)/phone/topicSubscriptions?topic_name=a%20b", json: "{}", token: token)
        #expect(badTopic.status == 400)
        #expect(try fcmErrorCode(badTopic) == "INVALID_ARGUMENT")
        let anonymous = try await fixture.post(
            "\(base)/phone/topicSubscriptions?topic_name=books", json: "{}", token: nil)
        #expect(anonymous.status == 401)
        #expect(fixture.emulator.topics.tokens(subscribedTo: "books") == ["phone"])

        let url = "\(fixture.server.baseURL)\(base)/phone/topicSubscriptions/books"
        let headers: HTTPHeaders = ["Authorization": "Bearer \(token)"]
        #expect(try await fixture.client.delete(url: url, headers: headers).status == 200)
        #expect(fixture.emulator.topics.tokens(subscribedTo: "books") == [])
        #expect(try await fixture.client.delete(url: url, headers: headers).status == 404)
        #expect(try await fixture.client.delete(url: url + "?allow_missing=true", headers: headers).status == 200)
    }

    // MARK: Inside `switchyard serve`

    @Test func theServedAppSharesOneOutboxAndKeepsSubscriptionsAcrossRestarts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
        appId: books
        messaging:
          emulator:
            project: books-firebase
            faults:
              unregisteredTokens: [gone]
        """.write(toFile: "\(directory)/triggers.yaml", atomically: true, encoding: .utf8)
        var registry = FunctionRegistry()
        registry.register("announce") { (_: [BSON], context: FunctionContext) in
            .string(try await context.services.messaging.send(PushMessage(target: .topic("books"), data: ["k": "v"])))
        }
        let open = {
            try await SwitchyardApp.open(
                directory: directory, registry: registry, options: SwitchyardApp.Options(variables: [:]))
        }
        let app = try await open()
        let server = try await AppServer.start(app: app, configuration: .init(port: 0))
        let client = try HTTPClient()
        let token = server.fcmEmulator.issueAccessToken()
        let base = server.http.baseURL
        let added = try await client.post(
            url: "\(base)/iid/v1:batchAdd",
            body: Array(#"{"to":"/topics/books","registration_tokens":["a","b","gone"]}"#.utf8),
            headers: ["Authorization": "Bearer \(token)"])
        #expect(added.text == #"{"results":[{},{},{"error":"NOT_FOUND"}]}"#)
        let sent = try await client.post(
            url: "\(base)/v1/projects/books-firebase/messages:send", body: Array(#"{"message":{"token":"a"}}"#.utf8),
            headers: ["Authorization": "Bearer \(token)"])
        #expect(sent.status == 200)
        let user = FunctionUser(id: "u", data: [:], identities: [])
        _ = try await app.call(function: "announce", user: user)
        let entries = try await app.outbox()
        #expect(entries.map(\.target) == [.token("a"), .topic("books")])
        #expect(entries.map(\.reachedTokens) == [["a"], ["a", "b"]])
        #expect(entries.allSatisfy { $0.name.hasPrefix("projects/books-firebase/messages/") })
        await server.stop()
        await app.stop()

        let reopened = try await open()
        #expect(reopened.pushOutbox.topics.tokens(subscribedTo: "books") == ["a", "b"])
        await reopened.stop()
    }
}
