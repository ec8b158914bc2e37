import Foundation
import Testing

@Suite struct RunCommandTests {
    @Test func reportsTheAppAndItsValuesWithoutSecrets() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write("values.json", #"{"apiKey": {"secret": "apiKey"}, "region": "eu"}"#)
        let run = try switchyard(
            ["run"], in: app.path, environment: ["SWITCHYARD_SECRET_APIKEY": "hunter2", "SWITCHYARD_ENV": "qa"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        #expect(
            run.stdout.hasPrefix(
                """
                app: demo (environment: qa)
                triggers (0):
                values (2):
                  apiKey = <secret>
                  region = "eu"

                """))
        #expect(!run.stdout.contains("hunter2"))
    }

    @Test func aTriggerWhoseFunctionCannotServeItIsNotRun() throws {
        let app = try TemporaryDirectory()
        try app.write(
            "triggers.yaml",
            """
            triggers:
              - name: nightly
                type: scheduled
                function: ping
                schedule: "30 2 * * *"
            """)
        let run = try switchyard(["run", "--config", app.path])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr.hasPrefix(
                "\(app.path)/triggers.yaml: trigger 'nightly' is a scheduled trigger but function 'ping' is callable"))
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
