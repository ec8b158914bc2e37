import Foundation
import TestSupport
import Testing

@Suite struct RunCommandTests {
    @Test func reportsTheAppRunsItUntilInterruptedAndHoldsItsData() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write("values.json", #"{"apiKey": {"secret": "apiKey"}, "region": "eu"}"#)
        let running = try RunningSwitchyard(
            ["run"], in: app.path, environment: ["SWITCHYARD_SECRET_APIKEY": "hunter2", "SWITCHYARD_ENV": "qa"])
        defer { running.kill() }
        #expect(
            running.lines(atLeast: 6) == [
                "app: demo (environment: qa)", "triggers (0):", "values (2):", "  apiKey = <secret>",
                "  region = \"eu\"", "running; data in .switchyard (Ctrl-C stops)",
            ])
        // While it runs, the data directory is its own (the configuration is checked first, so the call has it all).
        let call = try switchyard(["call", "ping"], in: app.path, environment: ["SWITCHYARD_SECRET_APIKEY": "x"])
        #expect(call.status == 1)
        #expect(call.stderr.contains("is in use by another switchyard process"))

        #expect(running.interrupt() == 0)
        #expect(running.text.hasSuffix("running; data in .switchyard (Ctrl-C stops)\nstopping (interrupt)\nstopped\n"))
        #expect(!running.text.contains("hunter2"))
        let after = try switchyard(["call", "ping"], in: app.path, environment: ["SWITCHYARD_SECRET_APIKEY": "x"])
        #expect(after.status == 0, "\(after.stderr)")
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
