import Foundation
import Testing

@Suite struct ValidateCommandTests {
    @Test func theExampleAppIsValid() throws {
        let app = try TemporaryDirectory()
        try app.copyExampleApp()
        let run = try switchyard(["validate", "--config", app.path])
        #expect(run.status == 0)
        #expect(run.stdout == "ok: 6 triggers, 4 values (environment: development)\n")
        #expect(run.stderr.isEmpty)
    }

    @Test func theConfigurationDefaultsToTheCurrentDirectory() throws {
        let app = try TemporaryDirectory()
        try app.copyExampleApp()
        let run = try switchyard(["validate"], in: app.path)
        #expect(run.status == 0)
        #expect(run.stdout == "ok: 6 triggers, 4 values (environment: development)\n")
    }

    @Test func theEnvironmentComesFromTheFlagElseTheVariable() throws {
        let app = try TemporaryDirectory()
        try app.copyExampleApp()
        try app.write("environments/production.json", #"{"values": {"apnsTeam": "ABC123"}}"#)
        let variable = try switchyard(
            ["validate", "--config", app.path], environment: ["SWITCHYARD_ENV": "production"])
        #expect(variable.stdout == "ok: 6 triggers, 5 values (environment: production)\n")
        let flag = try switchyard(
            ["validate", "--config", app.path, "--environment", "qa"], environment: ["SWITCHYARD_ENV": "production"])
        #expect(flag.stdout == "ok: 6 triggers, 4 values (environment: qa)\n")
        let unknown = try switchyard(["validate", "--config", app.path, "--environment", "prod"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("switchyard validate: --environment: unknown environment 'prod'"))
    }

    @Test func everyProblemIsReportedWithFileLineAndColumn() throws {
        let app = try TemporaryDirectory()
        try app.copyExampleApp()
        let triggers = try #require(app.read("triggers.yaml"))
            .replacingOccurrences(of: "operations: [INSERT, DELETE]", with: "operations: [INSRT, DELETE]")
            .replacingOccurrences(of: #"schedule: "*/5 * * * *""#, with: #"schedule: "*/5 * * *""#)
        try app.write("triggers.yaml", triggers)
        try app.write("values.json", "{\n  \"fcm\": {\"secret\": \"fcmKey\"}\n}\n")
        let run = try switchyard(["validate"], in: app.path)
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr == """
                triggers.yaml:11:18: unknown operation type 'INSRT' (did you mean 'INSERT'?)
                triggers.yaml:42:16: a schedule has 5 fields (minute hour dayOfMonth month weekday), found 4
                values.json:2:10: secret 'fcmKey' is not set (set SWITCHYARD_SECRET_FCMKEY or add it to secrets.json)

                """)
        let withSecret = try switchyard(
            ["validate"], in: app.path, environment: ["SWITCHYARD_SECRET_FCMKEY": "key"])
        #expect(withSecret.status == 2)
        #expect(!withSecret.stderr.contains("values.json"))
    }

    @Test func aDirectoryWithoutTriggersIsBadInput() throws {
        let app = try TemporaryDirectory()
        let run = try switchyard(["validate", "--config", app.path])
        #expect(run.status == 2)
        #expect(run.stderr == "\(app.path)/triggers.yaml: file not found\n")
    }

    @Test func unexpectedArgumentsAreUsageErrors() throws {
        let run = try switchyard("validate", "extra")
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("switchyard validate: unexpected argument 'extra'"))
        #expect(run.stderr.contains("USAGE: switchyard validate"))
        let option = try switchyard("validate", "--confg", ".")
        #expect(option.status == 2)
        #expect(option.stderr.hasPrefix("switchyard validate: unknown option '--confg' (did you mean '--config'?)"))
    }
}
