import BSON
import Foundation
import Switchyard
import TestSupport
import Testing

@Suite struct AppConfigurationTests {
    let triggers = """
        appId: books
        triggers:
          - name: sendBooksTopic
            type: database
            function: sendBooksTopic
            database: product
            collection: book
            operations: [INSERT]
        """

    func errorLines(_ body: () throws -> Void) -> [String] {
        do {
            try body()
            return []
        } catch {
            return "\(error)".split(separator: "\n").map(String.init)
        }
    }

    @Test func loadsTheExampleAppInTheRepository() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let configuration = try AppConfiguration.load(
            directory: root,
            registeredFunctions: [
                "sentTopicNotification", "onBookUpdated", "sentPushNotification", "retryUnprocessedNotifications",
                "createNewUser", "updateUser", "deleteUserData",
            ], variables: [:])
        #expect(configuration.triggers.count == 7)
        #expect(configuration.values["booksTopic"] == .plain("books"))
        #expect(configuration.values["retryAfterMinutes"] == .plain(.int32(5)))
    }

    @Test func environmentFilesOverrideAndAddValues() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", triggers)
        try directory.write(
            "values.json",
            """
            {
              "booksTopic": "books",
              "limits": {"push": 3, "ratio": 0.5, "since": {"$date": "2024-01-01T00:00:00Z"}},
              "admins": ["a@example.com"]
            }
            """)
        try directory.write(
            "environments/production.json", #"{"values": {"booksTopic": "books-prod", "region": "eu"}}"#)
        let development = try AppConfiguration.load(directory: directory.path, variables: [:])
        #expect(development.environment == .development)
        #expect(development.values.names == ["booksTopic", "limits", "admins"])
        #expect(development.values["booksTopic"] == .plain("books"))
        #expect(
            development.values["limits"]
                == .plain([
                    "push": .int32(3), "ratio": .double(0.5),
                    "since": .datetime(BSONDate(millisecondsSinceEpoch: 1_704_067_200_000)),
                ]))
        let production = try AppConfiguration.load(directory: directory.path, environment: .production, variables: [:])
        #expect(production.values["booksTopic"] == .plain("books-prod"))
        #expect(production.values["region"] == .plain("eu"))
        #expect(production.values.names == ["booksTopic", "limits", "admins", "region"])
    }

    @Test func environmentIsChosenByFlagThenVariableThenDefault() throws {
        #expect(try AppEnvironment.select(flag: "production", variables: ["SWITCHYARD_ENV": "testing"]) == .production)
        #expect(try AppEnvironment.select(flag: nil, variables: ["SWITCHYARD_ENV": "testing"]) == .testing)
        #expect(try AppEnvironment.select(flag: nil, variables: [:]) == .development)
        #expect(throws: AppEnvironment.UnknownName(name: "prod", source: "--environment")) {
            try AppEnvironment.select(flag: "prod", variables: [:])
        }
        #expect(
            AppEnvironment.UnknownName(name: "testin", source: "SWITCHYARD_ENV").description
                == "SWITCHYARD_ENV: unknown environment 'testin' (did you mean 'testing'?) (expected development, testing, qa, production)"
        )
    }

    @Test func secretsResolveFromTheEnvironmentBeforeSecretsJSON() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", triggers)
        try directory.write(
            "values.json",
            #"{"fcmKey": {"secret": "fcm-server.key"}, "legacy": {"value": "apiToken", "from_secret": true}, "literal": {"value": {"secret": "x"}, "from_secret": false}}"#
        )
        try directory.write("secrets.json", #"{"fcm-server.key": "from-file", "apiToken": "token-from-file"}"#)
        #expect(SecretStore.variableName(for: "fcm-server.key") == "SWITCHYARD_SECRET_FCM_SERVER_KEY")
        let configuration = try AppConfiguration.load(
            directory: directory.path, variables: ["SWITCHYARD_SECRET_FCM_SERVER_KEY": "from-environment"])
        guard case .secret(let fcm) = configuration.values["fcmKey"],
            case .secret(let token) = configuration.values["legacy"]
        else {
            Issue.record("secrets were not resolved")
            return
        }
        #expect(fcm.exposedValue == "from-environment")
        #expect(token.exposedValue == "token-from-file" && token.name == "apiToken")
        #expect(configuration.values["literal"] == .plain(["secret": "x"]))
    }

    @Test func aMissingSecretNamesTheSecretAndWhereToSetIt() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", triggers)
        try directory.write("values.json", "{\n  \"fcmKey\": {\"secret\": \"fcmServerKey\"}\n}")
        try directory.write("environments/production.json", "{\"values\": {\"other\": {\"secret\": \"prodOnly\"}}}")
        #expect(
            errorLines {
                _ = try AppConfiguration.load(directory: directory.path, environment: .production, variables: [:])
            }
                == [
                    "\(directory.path)/environments/production.json:1:22: secret 'prodOnly' is not set (set SWITCHYARD_SECRET_PRODONLY or add it to secrets.json)",
                    "\(directory.path)/values.json:2:13: secret 'fcmServerKey' is not set (set SWITCHYARD_SECRET_FCMSERVERKEY or add it to secrets.json)",
                ])
    }

    @Test func collectsErrorsFromEveryFileSortedByFileAndPosition() throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "triggers.yaml",
            """
            triggers:
              - name: a
                type: scheduled
                function: sendBookTopic
                schedule: "0 0 * * 7"
            """)
        try directory.write("values.json", "{\n  \"a\": 1,\n  \"b\": nope,\n  \"c\": 1,\n  \"c\": 2\n}")
        try directory.write("environments/development.json", #"{"value": {}}"#)
        #expect(
            errorLines {
                _ = try AppConfiguration.load(
                    directory: directory.path, registeredFunctions: ["sendBooksTopic"], variables: [:])
            } == [
                "\(directory.path)/environments/development.json:1:2: unknown key 'value' (did you mean 'values'?)",
                "\(directory.path)/triggers.yaml:4:15: unknown function 'sendBookTopic' (did you mean 'sendBooksTopic'? registered: sendBooksTopic)",
                "\(directory.path)/triggers.yaml:5:24: 7 is out of range for the weekday field (0-6) (use 0 or SUN for Sunday)",
                "\(directory.path)/values.json:3:8: invalid JSON value (strings need double quotes)",
            ])
    }

    @Test func jsonValuesMustBeJSON() throws {
        #expect(
            errorLines { _ = try ValueDefinitions.parse("{\n\t\"a\": nope,\n\t\"b\": [1, 2.5e3, -0, true]\n}") }
                == ["values.json:2:7: invalid JSON value (strings need double quotes)"])
        #expect(errorLines { _ = try ValueDefinitions.parse("a: 1") } == ["values.json:1:1: expected a JSON object"])
        #expect(
            errorLines { _ = try ValueDefinitions.parse("") } == ["values.json:1:1: empty file, expected a JSON object"]
        )
        #expect(try ValueDefinitions.parse(#"{"s": "caf\u00e9 \/ ok \ud83d\ude00"}"#)["s"] == .plain("café / ok 😀"))
        #expect(
            errorLines { _ = try ValueDefinitions.parse(#"{"n": 1e400000}"#) } == [
                "values.json:1:7: number out of range"
            ])
    }

    @Test func valuesAreStrictJSONWithJSONErrors() throws {
        #expect(
            errorLines { _ = try ValueDefinitions.parse("{\n  \"a\": 1,\n}") } == [
                "values.json:3:1: trailing comma: JSON allows no ',' before '}'"
            ])
        #expect(
            errorLines { _ = try ValueDefinitions.parse("{\"a\": [1, 2,]}") } == [
                "values.json:1:13: trailing comma: JSON allows no ',' before ']'"
            ])
        #expect(
            errorLines { _ = try ValueDefinitions.parse("{'a': 1}") } == [
                "values.json:1:2: keys need double quotes"
            ])
        #expect(
            errorLines { _ = try ValueDefinitions.parse("{\"a\": 'x'}") } == [
                "values.json:1:7: strings need double quotes"
            ])
        #expect(
            errorLines { _ = try ValueDefinitions.parse("{\"a\": 1\n") } == ["values.json:1:1: this '{' is not closed"])
        #expect(
            errorLines { _ = try ValueDefinitions.parse("{\"a\": 1 \"b\": 2}") } == [
                "values.json:1:9: expected ',' or '}' after the value"
            ])
        #expect(
            errorLines { _ = try ValueDefinitions.parse("{\"a\": 1} x") } == [
                "values.json:1:10: unexpected text after the JSON value"
            ])
        #expect(
            errorLines { _ = try ValueDefinitions.parse("{\n  // the topic\n  \"a\": 1\n}") } == [
                "values.json:2:3: JSON has no comments"
            ])
        #expect(
            errorLines { _ = try ValueDefinitions.parse("{\"a\": 1, \"a\": 2}") } == [
                "values.json:1:10: duplicate key 'a'"
            ])
        #expect(
            try ValueDefinitions.parse("{\"a\": {\"b\": [true, null, \"t\\tx\"]}}")["a"]
                == .plain(["b": [true, .null, "t\tx"]]))
    }

    @Test func aMissingTriggersFileIsReported() throws {
        let directory = try TemporaryDirectory()
        #expect(
            errorLines { _ = try AppConfiguration.load(directory: directory.path, variables: [:]) }
                == ["\(directory.path)/triggers.yaml: file not found"])
    }
}
