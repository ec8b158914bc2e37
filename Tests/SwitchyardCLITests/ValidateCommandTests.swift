import Foundation
import TestSupport
import Testing

@Suite struct ValidateCommandTests {
    let values = #"{"booksTopic": "books", "retryAfterMinutes": 5}"#

    /// A database trigger on `product.book` calling `function`, with `operations` and `extra` lines.
    func databaseTrigger(function: String, operations: String = "[INSERT, DELETE]", extra: String = "") -> String {
        """
        appId: demo
        triggers:
          - name: onBook
            type: database
            function: \(function)
            database: product
            collection: book
            operations: \(operations)
        \(extra)
        """
    }

    @Test func aValidAppIsOK() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write("values.json", values)
        let run = try switchyard(["validate", "--config", app.path])
        #expect(run.status == 0)
        #expect(run.stdout == "ok: 0 triggers, 2 values (environment: development)\n")
        #expect(run.stderr.isEmpty)
    }

    @Test func theConfigurationIsTheDirectoryOrItsTriggersFile() throws {
        let app = try TemporaryDirectory()
        try app.write("x/triggers.yaml", pingApp)
        try app.write("x/values.json", values)
        for given in ["x/triggers.yaml", "\(app.path)/x/triggers.yaml", "x", "x/"] {
            let run = try switchyard(["validate", "--config", given], in: app.path)
            #expect(run.status == 0, "\(given): \(run.stderr)")
            #expect(run.stdout == "ok: 0 triggers, 2 values (environment: development)\n")
        }
        let other = try switchyard(["validate", "--config", "x/values.json"], in: app.path)
        #expect(other.status == 2)
        #expect(other.stderr.hasPrefix("switchyard validate: --config takes the app's directory or its triggers.yaml"))
    }

    @Test func valuesAreReadAsStrictJSON() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write("values.json", "{\n  'booksTopic': \"books\",\n}\n")
        let run = try switchyard(["validate", "--config", app.path])
        #expect(run.status == 2)
        #expect(run.stderr == "\(app.path)/values.json:2:3: keys need double quotes\n")
        try app.write("values.json", "{\n  \"booksTopic\": \"books\",\n}\n")
        let trailing = try switchyard(["validate", "--config", app.path])
        #expect(trailing.stderr == "\(app.path)/values.json:3:1: trailing comma: JSON allows no ',' before '}'\n")
    }

    @Test func aMatchTheStoreRefusesIsReportedWhereItIs() throws {
        let app = try TemporaryDirectory()
        try app.write(
            "triggers.yaml",
            databaseTrigger(function: "sentTopicNotification", extra: "    match: {\"fullDocument.lang\": {$eqq: en}}"))
        let run = try switchyard(["validate", "--config", app.path])
        #expect(run.status == 2)
        #expect(run.stderr == "\(app.path)/triggers.yaml:9:35: 'match': unknown operator: $eqq\n")
        #expect(run.stdout.isEmpty)
    }

    @Test func theConfigurationDefaultsToTheCurrentDirectory() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let run = try switchyard(["validate"], in: app.path)
        #expect(run.status == 0)
        #expect(run.stdout == "ok: 0 triggers, 0 values (environment: development)\n")
    }

    @Test func theEnvironmentComesFromTheFlagElseTheVariable() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write("values.json", values)
        try app.write("environments/production.json", #"{"values": {"apnsTeam": "ABC123"}}"#)
        let variable = try switchyard(
            ["validate", "--config", app.path], environment: ["SWITCHYARD_ENV": "production"])
        #expect(variable.stdout == "ok: 0 triggers, 3 values (environment: production)\n")
        let flag = try switchyard(
            ["validate", "--config", app.path, "--environment", "qa"], environment: ["SWITCHYARD_ENV": "production"])
        #expect(flag.stdout == "ok: 0 triggers, 2 values (environment: qa)\n")
        let unknown = try switchyard(["validate", "--config", app.path, "--environment", "prod"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("switchyard validate: --environment: unknown environment 'prod'"))
    }

    @Test func everyProblemIsReportedWithFileLineAndColumn() throws {
        let app = try TemporaryDirectory()
        let schedule = """
              - name: every5
                type: scheduled
                function: ping
                schedule: "*/5 * * *"
            """
        try app.write(
            "triggers.yaml", databaseTrigger(function: "ping", operations: "[INSRT, DELETE]", extra: schedule))
        try app.write("values.json", "{\n  \"fcm\": {\"secret\": \"fcmKey\"}\n}\n")
        let run = try switchyard(["validate"], in: app.path)
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr == """
                triggers.yaml:8:18: unknown operation type 'INSRT' (did you mean 'INSERT'?)
                triggers.yaml:12:16: a schedule has 5 fields (minute hour dayOfMonth month weekday), found 4
                values.json:2:10: secret 'fcmKey' is not set (set SWITCHYARD_SECRET_FCMKEY or add it to secrets.json)

                """)
        let withSecret = try switchyard(["validate"], in: app.path, environment: ["SWITCHYARD_SECRET_FCMKEY": "key"])
        #expect(withSecret.status == 2)
        #expect(!withSecret.stderr.contains("values.json"))
    }

    @Test func functionsAreCheckedAgainstTheRegisteredOnes() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", databaseTrigger(function: "noSuchFunction"))
        let unknown = try switchyard(["validate"], in: app.path)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("triggers.yaml:5:15: unknown function 'noSuchFunction' ("))
        #expect(unknown.stderr.contains("ping"))

        // `ping` is callable: a database trigger cannot call it.
        try app.write("triggers.yaml", databaseTrigger(function: "ping"))
        let wrongKind = try switchyard(["validate"], in: app.path)
        #expect(wrongKind.status == 2)
        #expect(
            wrongKind.stderr.hasPrefix(
                "triggers.yaml: trigger 'onBook' is a database trigger but function 'ping' is callable"))
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
