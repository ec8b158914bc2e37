import BSON
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

/// Which credentials the emulator takes: assertions signed for its own token endpoint (or Google's), and, in
/// development, Firebase's emulator convention `Authorization: Bearer owner`.
extension FCMEmulatorTests {
    static let jwtBearerGrant = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="

    @Test func anAssertionForAnotherTokenEndpointIsAnInvalidGrant() async throws {
        let fixture = try Fixture()
        for audience in [
            "https://attacker.example/token", "http://127.0.0.1:1/oauth2/token", "\(fixture.server.baseURL)/token",
            "https://oauth2.googleapis.com/token/",
        ] {
            let response = try await fixture.postForm(
                Self.jwtBearerGrant + Self.assertion(["aud": .string(audience)]))
            #expect(response.status == 400, "\(audience)")
            let body = try #require(response.json?.documentValue)
            #expect(body["error"] == "invalid_grant", "\(audience)")
            let description = body["error_description"]?.stringValue ?? ""
            #expect(description.hasPrefix("Invalid JWT: Failed audience check."), "\(audience)")
            #expect(description.contains(fixture.tokenURI), "names the accepted audience: \(description)")
        }
        for audience in [fixture.tokenURI, ServiceAccount.googleTokenURI] {
            let response = try await fixture.postForm(
                Self.jwtBearerGrant + Self.assertion(["aud": .string(audience)]))
            #expect(response.status == 200, "\(audience): \(response.text)")
        }
    }

    @Test func bearerOwnerReachesEveryRouteWithoutAnOAuthExchange() async throws {
        let fixture = try Fixture()
        let sent = try await fixture.send(#"{"message":{"token":"phone"}}"#, token: "owner")
        #expect(sent.status == 200, "\(sent.text)")
        let added = try await fixture.post(
            "/iid/v1:batchAdd", json: #"{"to":"/topics/books","registration_tokens":["phone"]}"#, token: "owner")
        #expect(added.text == #"{"results":[{}]}"#)
        let created = try await fixture.post(
            "/v1/projects/books-app/registrations/tablet/topicSubscriptions?topic_name=books", json: "{}",
            token: "owner")
        #expect(created.status == 200)
        #expect(fixture.emulator.topics.tokens(subscribedTo: "books") == ["phone", "tablet"])
        #expect(fixture.outbox.entries.map(\.target) == [.token("phone")])
        // Like any credential of the emulator's project, it reaches no other project.
        #expect(
            try await fixture.send(#"{"message":{"token":"phone"}}"#, token: "owner", project: "other").status == 404)
    }

    @Test func bearerOwnerIsRefusedWhereTheServerDeliversForReal() async throws {
        let outbox = OutboxMessaging(project: "books-app")
        let emulator = FCMEmulator(outbox: outbox, acceptsOwnerToken: false)
        var router = Router()
        router.add(emulator.routes)
        let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), router: router)
        let refused = try await HTTPClient().post(
            url: "\(server.baseURL)/v1/projects/books-app/messages:send",
            body: Array(#"{"message":{"token":"phone"}}"#.utf8), headers: ["Authorization": "Bearer owner"])
        #expect(refused.status == 401)
        let error = try googleError(refused)
        #expect(error["status"] == "UNAUTHENTICATED")
        #expect(error["message"]?.stringValue?.contains("--push emulator") == true)
        #expect(outbox.entries.isEmpty)
    }

    @Test func aServedAppTakesBearerOwnerOnlyWhileItSendsThroughItsEmulator() async throws {
        let message = Array(#"{"message":{"token":"phone"}}"#.utf8)
        let configuration = AppConfiguration(
            definition: AppDefinition(), environment: .development, values: AppValues())
        for live in [false, true] {
            // An app opened with a transport of its own is what `serve --push live` runs.
            let options = SwitchyardApp.Options(messaging: live ? OutboxMessaging(project: "elsewhere") : nil)
            let app = try await SwitchyardApp.open(
                configuration: configuration, registry: FunctionRegistry(), store: .memory, options: options)
            let server = try await AppServer.start(app: app, configuration: .init(port: 0))
            let response = try await HTTPClient().post(
                url: "\(server.http.baseURL)/v1/projects/\(server.fcmEmulator.project)/messages:send", body: message,
                headers: ["Authorization": "Bearer owner"])
            await server.stop()
            await app.stop()
            #expect(response.status == (live ? 401 : 200), "live: \(live): \(response.text)")
        }
    }
}
