import BSON
import Foundation
import Messaging
import Switchyard
import TestSupport
import Testing

@Suite struct LiveMessagingTests {
    /// A fresh private key in PEM from the openssl tool.
    static func privateKeyPEM(_ algorithm: [String]) throws -> String {
        try FinishedProcess.runWaiting("/usr/bin/openssl", ["genpkey"] + algorithm).output
    }

    func configuration(_ messaging: MessagingSettings = MessagingSettings(), values: AppValues) -> AppConfiguration {
        AppConfiguration(
            definition: AppDefinition(appId: "books", messaging: messaging), environment: .production, values: values)
    }

    func serviceAccountJSON(privateKey: String) -> String {
        let document: BSONDocument = [
            "type": "service_account", "project_id": "books-firebase", "private_key": .string(privateKey),
            "client_email": "push@books-firebase.iam.gserviceaccount.com",
        ]
        return document.extendedJSON(mode: .relaxed)
    }

    @Test func withoutCredentialsLiveDeliveryRefusesToStartSayingWhatToGive() {
        #expect {
            _ = try LiveMessaging.transport(for: configuration(values: AppValues()))
        } throws: { error in
            let text = "\(error)"
            return text.contains("--service-account FILE") && text.contains("'fcmServiceAccount'")
        }
    }

    @Test func theServiceAccountComesFromASecretLinkedValue() throws {
        let pem = try Self.privateKeyPEM(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        let secret = Secret(name: "fcmServiceAccountKey", value: serviceAccountJSON(privateKey: pem))
        let transport = try LiveMessaging.transport(
            for: configuration(values: AppValues([("fcmServiceAccount", .secret(secret))])))
        let client = try #require(transport as? FCMClient)
        #expect(client.projectId == "books-firebase")
        #expect(client.configuration.endpoints == .google)
    }

    @Test func anUnusableKeyIsNamedWithoutShowingIt() {
        let secret = Secret(
            name: "key", value: serviceAccountJSON(privateKey: "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n"))
        #expect {
            _ = try LiveMessaging.transport(
                for: configuration(values: AppValues([("fcmServiceAccount", .secret(secret))])))
        } throws: { error in
            let text = "\(error)"
            return text.contains("the value 'fcmServiceAccount': private_key") && !text.contains("c2VjcmV0")
        }
    }

    @Test func apnsTransportUsesTheConfiguredKeyAndHost() throws {
        let key = try Self.privateKeyPEM(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        let settings = MessagingSettings(
            transport: .apns,
            apns: APNsSettings(
                teamId: "TEAM123456", keyId: "KEY1234567", keyValue: "apnsKey", topic: "com.example.books",
                environment: .sandbox))
        let transport = try LiveMessaging.transport(
            for: configuration(settings, values: AppValues([("apnsKey", .secret(Secret(name: "apns", value: key)))])))
        let client = try #require(transport as? APNsClient)
        #expect(client.configuration.baseURL == APNsClient.Configuration.sandboxURL)
        #expect(client.configuration.defaultTopic == "com.example.books")
        #expect {
            _ = try LiveMessaging.transport(for: configuration(settings, values: AppValues()))
        } throws: { "\($0)".contains("'apnsKey', which does not exist") }
    }
}
