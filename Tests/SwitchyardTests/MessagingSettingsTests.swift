import BSON
import Messaging
import Switchyard
import Testing

@Suite struct MessagingSettingsTests {
    @Test func readsTheEmulatorSectionAndWritesItBack() throws {
        let definition = try AppDefinition.parse(
            """
            appId: books
            messaging:
              emulator:
                project: books-firebase
                faults:
                  unregisteredTokens: [stale, "gone"]
                  unavailable: 3
                  internalErrors: 1
                  quotaExceeded: 2
                  rateLimit: 100
                  retryAfter: 1500ms
                  latency: 250ms
                  connectionResets: 1
            """)
        let emulator = definition.messaging.emulator
        #expect(emulator.project == "books-firebase")
        #expect(
            emulator.faults
                == FaultSettings(
                    unregisteredTokens: ["stale", "gone"], unavailable: 3, internalErrors: 1, quotaExceeded: 2,
                    rateLimit: 100, retryAfterSeconds: 2, latency: .milliseconds(250), connectionResets: 1))
        #expect(try AppDefinition.parse(try definition.yamlText()) == definition)
        #expect(try AppDefinition.parse("messaging:\n  emulator: {}\n").messaging == MessagingSettings())
    }

    @Test func mistakesAreReportedWithTheirPosition() {
        do {
            _ = try AppDefinition.parse(
                """
                messaging:
                  emulator:
                    project: a/b
                    faults:
                      unavailable: -1
                      latncy: 2s
                      retryAfter: soon
                      unregisteredTokens: stale
                """)
            Issue.record("the definition parsed")
        } catch {
            #expect(
                error.description.split(separator: "\n").map(String.init) == [
                    "triggers.yaml:3:14: 'project' must be a Firebase project id (no '/')",
                    "triggers.yaml:5:20: 'unavailable' must be a whole number from 0 to 1000000000",
                    "triggers.yaml:6:7: unknown key 'latncy' (did you mean 'latency'?)",
                    "triggers.yaml:7:19: 'retryAfter' must be a duration like 500ms, 2s, 1m or 1h",
                    "triggers.yaml:8:27: 'unregisteredTokens' must be a list, found a scalar",
                ])
        }
    }

    @Test func readsTheTransportAndItsCredentialsAndWritesThemBack() throws {
        let definition = try AppDefinition.parse(
            """
            messaging:
              transport: apns
              fcm:
                serviceAccount: firebaseKey
              apns:
                teamId: TEAM123456
                keyId: KEY1234567
                key: apnsKey
                topic: com.example.books
                environment: sandbox
            """)
        let messaging = definition.messaging
        #expect(messaging.transport == .apns)
        #expect(messaging.fcmServiceAccountValue == "firebaseKey")
        #expect(
            messaging.apns
                == APNsSettings(
                    teamId: "TEAM123456", keyId: "KEY1234567", keyValue: "apnsKey", topic: "com.example.books",
                    environment: .sandbox))
        #expect(messaging.apns?.baseURL == "https://api.sandbox.push.apple.com")
        #expect(try AppDefinition.parse(try definition.yamlText()) == definition)
        #expect(try AppDefinition.parse("messaging: {transport: fcm}\n").messaging == MessagingSettings())
    }

    @Test func transportMistakesAreReportedWithTheirPosition() {
        do {
            _ = try AppDefinition.parse(
                """
                messaging:
                  transport: apn
                  apns:
                    teamId: T
                    key: apnsKey
                    environment: staging
                    hots: x
                """)
            Issue.record("the definition parsed")
        } catch {
            #expect(
                error.description.split(separator: "\n").map(String.init) == [
                    "triggers.yaml:2:14: 'messaging.transport' is fcm or apns, not 'apn'",
                    "triggers.yaml:4:5: 'messaging.apns' needs keyId",
                    "triggers.yaml:6:18: 'messaging.apns.environment' is production or sandbox, not 'staging'",
                    "triggers.yaml:7:5: unknown key 'hots' (did you mean 'host'?)",
                ])
        }
        #expect(throws: ConfigurationErrors.self) { try AppDefinition.parse("messaging:\n  transport: apns\n") }
    }
}
