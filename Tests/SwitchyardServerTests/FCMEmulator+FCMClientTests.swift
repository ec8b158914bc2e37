import BSON
import Foundation
import Messaging
import TestSupport
import Testing

@testable import SwitchyardServer

/// Switchyard's own FCM client against the emulator of `switchyard serve`, through OAuth2, sends and topics.
@Suite(.timeLimit(.minutes(1))) struct FCMEmulatorFCMClientTests {
    @Test func theClientSendsMulticastsAndSubscriptionsThroughTheEmulator() async throws {
        let outbox = OutboxMessaging(project: "books-app", senderId: "1234")
        outbox.unregisteredTokens = ["gone"]
        outbox.malformedTokens = ["junk"]
        let (server, client) = try Self.client(ofEmulatorRecordingIn: outbox)
        defer { withExtendedLifetime(server) {} }

        let name = try await client.send(
            PushMessage(target: .topic("books"), notification: PushNotification(title: "New book", body: "Dune")))
        #expect(name.hasPrefix("projects/books-app/messages/"))

        let response = try await client.sendEachForMulticast(
            MulticastMessage(tokens: ["phone", "gone", "junk"], data: ["bookId": "42"]))
        #expect(response.results.map(\.error?.code) == [nil, .unregistered, .invalidArgument])
        #expect(response.tokensToDelete == ["gone", "junk"])

        let subscribed = try await client.subscribeToTopic(["phone", "tablet"], topic: "books")
        #expect(subscribed.successCount == 2)
        let unsubscribed = try await client.unsubscribeFromTopic(["tablet"], topic: "/topics/books")
        #expect(unsubscribed.successCount == 1)

        let delivered = outbox.entries.filter { $0.error == nil }.map(\.target)
        #expect(delivered == [.topic("books"), .token("phone")])
    }

    @Test func theClientSendsToAFirebaseInstallationIDAndLearnsWhichTokensAreNoTokens() async throws {
        let outbox = OutboxMessaging(project: "books-app")
        let (server, client) = try Self.client(ofEmulatorRecordingIn: outbox)
        defer { withExtendedLifetime(server) {} }

        let name = try await client.send(PushMessage(target: .fid("fid-phone"), data: ["bookId": "42"]))
        #expect(name.hasPrefix("projects/books-app/messages/"))
        #expect(outbox.entries.map(\.target) == [.fid("fid-phone")])

        let error = await #expect(throws: PushError.self) {
            try await client.send(PushMessage(target: .token("not a token ☃")))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.httpStatus == 400)
        #expect(error?.field == "message.token")
        #expect(error?.invalidatesToken == true)
    }

    /// An emulator recording in `outbox`, served on loopback, and an FCM client with its own key that reaches it.
    static func client(ofEmulatorRecordingIn outbox: OutboxMessaging) throws -> (HTTPServer, FCMClient) {
        var router = Router()
        router.add(FCMEmulator(outbox: outbox).routes)
        let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), router: router)
        let account = try ServiceAccount(
            projectId: "books-app", clientEmail: "sender@books-app.iam.gserviceaccount.com",
            privateKey: try freshRSAPrivateKeyPEM(), tokenURI: "\(server.baseURL)/oauth2/token")
        let client = try FCMClient(
            serviceAccount: account, configuration: FCMClient.Configuration(endpoints: .emulator(server.baseURL)))
        return (server, client)
    }
}
