import BSON
import Foundation
import Testing

@testable import Switchyard

@Suite struct AppConfigurationOverviewTests {
    @Test func listsTriggersWithTheirSourcesAndValuesWithoutSecrets() throws {
        let definition = AppDefinition(
            appId: "books",
            triggers: [
                TriggerDefinition(
                    name: "sendBooksTopic", function: "sendBooksTopic",
                    kind: .database(
                        DatabaseTrigger(
                            scope: .collection(database: "product", collection: "book"), operations: [.delete, .insert])
                    )),
                TriggerDefinition(
                    name: "everything", function: "audit", disabled: true,
                    kind: .database(DatabaseTrigger(scope: .deployment, operations: [.replace]))),
                TriggerDefinition(
                    name: "nightly", function: "cleanUp",
                    kind: .scheduled(ScheduledTrigger(schedule: try CronSchedule("30 2 * * MON")))),
                TriggerDefinition(
                    name: "welcome", function: "createUserData",
                    kind: .authentication(
                        AuthenticationTrigger(operation: .create, providers: [.emailPassword, .anonymous]))),
            ])
        let values = AppValues([
            ("topic", .plain("books")), ("fcmKey", .secret(Secret(name: "fcmKey", value: "hunter2"))),
        ])
        let configuration = AppConfiguration(definition: definition, environment: .qa, values: values)
        // Sunday 2026-11-29 19:00:00 UTC: the next Monday 02:30 is the day after.
        let now = Date(timeIntervalSince1970: 1_795_978_800)
        #expect(
            configuration.overview(now: now) == """
                app: books (environment: qa)
                triggers (4):
                  sendBooksTopic  database        product.book INSERT, DELETE               -> sendBooksTopic
                  everything      database        all databases REPLACE                     -> audit (disabled)
                  nightly         scheduled       30 2 * * MON (next 2026-11-30T02:30:00Z)  -> cleanUp
                  welcome         authentication  create via anon-user, local-userpass      -> createUserData
                values (2):
                  topic = "books"
                  fcmKey = <secret>
                """)
    }

    @Test func aScheduleThatNeverFiresAgainSaysSo() throws {
        let trigger = TriggerDefinition(
            name: "leap", function: "f", kind: .scheduled(ScheduledTrigger(schedule: try CronSchedule("0 0 29 2 *"))))
        #expect(
            trigger.sourceDescription(now: Date(timeIntervalSince1970: 253_402_300_000)) == "0 0 29 2 * (next never)")
        #expect(UTCTimestamp.text(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(
            UTCTimestamp.text(Date(timeIntervalSince1970: 0.0425), milliseconds: true) == "1970-01-01T00:00:00.042Z")
        #expect(
            UTCTimestamp.text(Date(timeIntervalSince1970: 1_764_466_496.25), milliseconds: true)
                == "2025-11-30T01:34:56.250Z")
        // Beyond four-digit years, the year takes the digits it needs.
        #expect(UTCTimestamp.text(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00Z")
    }
}
