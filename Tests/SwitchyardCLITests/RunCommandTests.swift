import Foundation
import Testing

@Suite struct RunCommandTests {
    @Test func reportsEachTriggerAndValue() throws {
        let app = try TemporaryDirectory()
        try app.copyExampleApp()
        let run = try switchyard(["run", "--config", app.path])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 15)
        #expect(lines[0] == "app: switchyard-app (environment: development)")
        #expect(lines[1] == "triggers (6):")
        #expect(
            lines[2]
                == "  sendBooksTopic                 database        product.book INSERT, DELETE              -> sendBooksTopic"
        )
        #expect(
            lines[4]
                == "  sendQueuedNotification         database        product.pushNotification INSERT          -> sendQueuedNotification"
        )
        // The next fire time of `*/5 * * * *` is a whole multiple of five minutes, in UTC.
        let scheduled = lines[5]
        #expect(scheduled.hasPrefix("  retryUnprocessedNotifications  scheduled       */5 * * * * (next "))
        #expect(scheduled.hasSuffix("Z)  -> retryUnprocessedNotifications"))
        #expect(scheduled.contains(#/\(next \d{4}-\d\d-\d\dT\d\d:\d[05]:00Z\)/#))
        #expect(
            lines[7]
                == "  ensureUserDataOnLogin          authentication  login via anon-user, local-userpass      -> createUserData"
        )
        #expect(
            Array(lines[8...])
                == [
                    "values (4):", "  booksTopic = \"books\"", "  retryAfterMinutes = 5",
                    "  userDataDatabase = \"product\"", "  userDataCollection = \"customUserData\"",
                    "not started: this build has no function registry or trigger dispatcher yet", "",
                ])
    }

    @Test func secretsNeverPrintAndDisabledTriggersSaySo() throws {
        let app = try TemporaryDirectory()
        try app.write(
            "triggers.yaml",
            """
            appId: demo
            triggers:
              - name: nightly
                type: scheduled
                function: cleanUp
                schedule: "30 2 * * *"
                disabled: true
            """)
        try app.write("values.json", #"{"apiKey": {"secret": "apiKey"}, "region": "eu"}"#)
        let run = try switchyard(["run"], in: app.path, environment: ["SWITCHYARD_SECRET_APIKEY": "hunter2"])
        #expect(run.status == 0)
        #expect(
            run.stdout.contains(
                #/  nightly  scheduled  30 2 \* \* \* \(next \d{4}-\d\d-\d\dT02:30:00Z\)  -> cleanUp \(disabled\)\n/#))
        #expect(run.stdout.contains("  apiKey = <secret>\n  region = \"eu\"\n"))
        #expect(!run.stdout.contains("hunter2"))
    }

    @Test func anInvalidConfigurationIsNotRun() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", "triggers:\n  - name: x\n    type: databse\n")
        let run = try switchyard(["run", "--config", app.path])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr == """
                \(app.path)/triggers.yaml:2:5: missing required key 'function' in trigger 'x'
                \(app.path)/triggers.yaml:3:11: unknown trigger type 'databse' (did you mean 'database'?) (expected database, scheduled or authentication)

                """)
    }
}
