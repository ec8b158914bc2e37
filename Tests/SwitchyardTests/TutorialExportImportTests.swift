import BSON
import Foundation
import TestSupport
import Testing

@testable import Switchyard

/// A tutorial-shaped export with every kind of file App Services writes (`TutorialExport`, modelled on the
/// Bookshelf tutorial's `backend/`): what is imported, what is kept verbatim and what is left out, line by line.
@Suite struct TutorialExportImportTests {
    static let export = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/TutorialExport").path
    let package = AppScaffold(directory: "/tmp/book-shelf", dependency: .path("/tmp/switchyard"))

    func imported() throws -> AppServicesImport { try AppServicesImporter.read(exportDirectory: Self.export) }

    /// Finding: `environments/no-environment.json: unknown environment 'no-environment'`.
    @Test func anExportWithNoEnvironmentJSONImports() throws {
        let imported = try imported()
        #expect(
            imported.environments[.development]
                == ValueDefinitions([.init(name: "shelfTopic", value: .plain("books-dev"))]))
        #expect(
            imported.environments[.production] == ValueDefinitions([.init(name: "shelfTopic", value: .plain("books"))]))
        // Its values are empty, so nothing of it is left out.
        #expect(!imported.leftOut.contains { $0.path == "environments/no-environment.json" })
    }

    @Test func valuesOfNoEnvironmentAreLeftOutByName() throws {
        let export = try TemporaryDirectory()
        try export.write("root_config.json", #"{"app_id": "a-1"}"#)
        try export.write("environments/no-environment.json", #"{"values": {"apiBase": "https://x", "flag": true}}"#)
        let imported = try AppServicesImporter.read(exportDirectory: export.path)
        #expect(imported.environments.isEmpty)
        #expect(
            imported.leftOut.map(\.description) == [
                "environments/no-environment.json: values 'apiBase', 'flag' left out: they apply only while no environment is set, and Switchyard always runs in one (--environment, SWITCHYARD_ENV, development by default)"
            ])
    }

    /// Finding: the stubs (`func onBookUpdated() throws`) match no registration overload.
    @Test func eachStubHasTheSignatureItsUseNeeds() throws {
        let functions = Dictionary(uniqueKeysWithValues: try imported().functions.map { ($0.name, $0) })
        #expect(functions["onBookUpdated"]?.kind == .database)
        #expect(functions["purgeStaleTokens"]?.kind == .scheduled)
        #expect(functions["createReader"]?.kind == .authentication)
        #expect(functions["updateFCMUserToken"]?.kind == .callable)
        #expect(functions["updateFCMUserToken"]?.parameters == ["token", "platform"])
        #expect(
            functions["resetReaderPassword"]?.parameters == [
                "{ token, tokenId, username, password }", "currentPasswordValid",
            ])
        #expect(functions["confirmReader"]?.usedBy == ["the email/password provider's confirmation function"])
        #expect(functions["bookOfTheDay"]?.usedBy == ["the `/bookOfTheDay` HTTPS endpoint's function"])

        let files = Dictionary(try imported().files(package: package), uniquingKeysWith: { first, _ in first })
        let database = try #require(files["functions/onBookUpdated.swift"])
        #expect(
            database.contains("func onBookUpdated(_ event: ChangeEvent, _ context: FunctionContext) async throws {"))
        #expect(database.contains("/// exports = async function(changeEvent) {"))
        #expect(database.contains("    throw NotPortedYet(\"onBookUpdated\")"))
        #expect(
            files["functions/purgeStaleTokens.swift"]?.contains(
                "func purgeStaleTokens(_ event: ScheduledEvent, _ context: FunctionContext) async throws {") == true)
        #expect(
            files["functions/createReader.swift"]?.contains(
                "func createReader(_ event: AuthEvent, _ context: FunctionContext) async throws {") == true)
        let callable = try #require(files["functions/updateFCMUserToken.swift"])
        #expect(
            callable.contains(
                "func updateFCMUserToken(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON {"))
        #expect(callable.contains("/// - `arguments[0]`: `token`\n/// - `arguments[1]`: `platform`\n"))
        // The JavaScript is kept beside the stub, outside the compiled sources.
        #expect(
            files["functions/js/onBookUpdated.js"]
                == (try String(contentsOfFile: "\(Self.export)/functions/onBookUpdated.js", encoding: .utf8)))
        #expect(files["Package.swift"]?.contains("path: \"functions\",\n            exclude: [\"js\"],") == true)
        for path in [
            "Package.swift", "README.md", ".gitignore", "Sources/BookShelf/main.swift",
            "Tests/BookShelfTests/BookShelfTests.swift",
        ] {
            #expect(files[path] != nil, "\(path)")
        }
    }

    /// Finding: schemas, rules, the email/password provider's settings, the app id and `http_endpoints/` were
    /// dropped without a word.
    @Test func keepsRulesSchemasEndpointsAuthSettingsAndTheAppId() throws {
        let imported = try imported()
        #expect(imported.definition.appId == "bookshelf-tutorial-kqzdx")
        #expect(imported.definition.auth.providers == [.anonymous, .emailPassword])
        #expect(
            imported.definition.auth.emailPassword
                == EmailPasswordSettings(
                    runConfirmationFunction: true, confirmationFunction: "confirmReader",
                    resetPasswordURL: "https://bookshelf.example.com/reset", runResetFunction: true,
                    resetFunction: "resetReaderPassword"))
        #expect(
            imported.definition.auth.customUserData
                == AuthSettings.CustomUserData(database: "product", collection: "customUserData", userIdField: "userId")
        )
        let kept = [
            "data_sources/mongodb-atlas/config.json", "data_sources/mongodb-atlas/default_rule.json",
            "data_sources/mongodb-atlas/product/book/relationships.json",
            "data_sources/mongodb-atlas/product/book/schema.json",
            "data_sources/mongodb-atlas/product/customUserData/rules.json",
            "data_sources/mongodb-atlas/product/customUserData/schema.json",
        ]
        #expect(imported.keptFiles.keys.sorted() == kept)
        // The endpoints are imported for real, as `endpoints:` in triggers.yaml.
        #expect(
            imported.definition.endpoints == [
                HTTPEndpoint(route: "/bookOfTheDay", method: .get, function: "bookOfTheDay", respondResult: false)
            ])
        for path in kept {
            #expect(imported.keptFiles[path] == (try String(contentsOfFile: "\(Self.export)/\(path)", encoding: .utf8)))
        }
        // Written out, the configuration loads back with the settings, and the files are where App Services keeps them.
        let output = try TemporaryDirectory()
        try imported.write(to: output.path, package: package)
        let configuration = try AppConfiguration.load(
            directory: output.path, registeredFunctions: Set(imported.functionsToPort),
            variables: [SecretStore.variableName(for: "fcmServiceAccountKey"): "{}"])
        // The kept `data_sources/` files are the app's data access rules and schemas once it loads.
        var loaded = configuration.definition
        #expect(loaded.rules.collections.keys.map(\.description).sorted() == ["product.customUserData"])
        #expect(loaded.rules.defaultRule != nil)
        #expect(loaded.rules.schemas.keys.map(\.description).sorted() == ["product.book", "product.customUserData"])
        loaded.rules = imported.definition.rules
        #expect(loaded == imported.definition)
        for path in kept { #expect(output.read(path) == imported.keptFiles[path], "\(path)") }
    }

    /// Finding: `unordered` became `maxConcurrency: 10`, a number the export never had.
    @Test func anUnorderedTriggerGetsAppServicesOwnLimitNamedAsSuch() throws {
        let imported = try imported()
        let trigger = try #require(imported.definition.triggers.first { $0.name == "favouriteBookUpdated" })
        guard case .database(let database) = trigger.kind else {
            Issue.record("not a database trigger")
            return
        }
        #expect(database.delivery == .unordered(maxConcurrency: 10_000))
        let yaml = try imported.definition.yamlText()
        #expect(
            yaml.contains(
                "    ordered: false\n    maxConcurrency: 10000  # App Services' own limit for unordered triggers\n"))
        #expect(try AppDefinition.parse(yaml) == imported.definition)
    }

    @Test func everyPartSwitchyardDoesNotRunGetsOneLocatedLine() throws {
        #expect(
            try imported().leftOut.map(\.description) == [
                "triggers/bookAudit.json: trigger 'bookAudit' left out: it sends its events to an AWS EventBridge event processor, which Switchyard cannot reach; only triggers that call a function run",
                "log_forwarders/auditLogs.json: log type 'auth' kept but never forwarded: Switchyard's invocation log records function runs only (function, trigger, trigger_error_handler, endpoint)",
                "sync/config.json: Device Sync (flexible sync) left out: Switchyard serves no sync protocol, so synced realms cannot connect; the SDKs' functions, remote MongoDB and auth calls work",
                "graphql/: GraphQL left out: Switchyard serves no GraphQL API",
                "graphql/custom_resolvers/bookCount.json: custom resolver left out: Switchyard serves no GraphQL API",
                "hosting/: static hosting left out: Switchyard hosts no files; serve hosting/files from any web server",
                "services/twilio/: third-party service 'twilio' (twilio) left out, with its incoming webhooks: Switchyard has no third-party services; call the API from a function with context.http",
            ])
    }

    /// `log_forwarders/*.json` becomes `logForwarders:`, and loads back as it was written.
    @Test func logForwardersAreImported() throws {
        let imported = try imported()
        #expect(
            imported.definition.logForwarders == [
                LogForwarder(
                    name: "auditLogs", logTypes: [.auth, .function], logStatuses: [.error], policy: .single,
                    action: .collection(database: "logs", collection: "audit"))
            ])
        #expect(try AppDefinition.parse(try imported.definition.yamlText()) == imported.definition)
    }

    @Test func aForwarderFunctionBecomesACallableStubAndAnUnknownActionIsLeftOut() throws {
        let export = try TemporaryDirectory()
        try export.write("root_config.json", #"{"app_id": "logs-1"}"#)
        try export.write(
            "log_forwarders/ship.json",
            #"{"name": "ship", "log_types": ["function", "trigger"], "log_statuses": ["error", "success"], "policy": {"type": "batch"}, "action": {"type": "function", "name": "shipLogs"}}"#
        )
        try export.write(
            "log_forwarders/archive.json",
            #"{"name": "archive", "log_types": ["function"], "log_statuses": ["error"], "policy": {"type": "single"}, "action": {"type": "s3", "bucket": "logs"}}"#
        )
        try export.write(
            "log_forwarders/typo.json",
            #"{"name": "typo", "log_types": ["functon"], "log_statuses": ["error"], "policy": {"type": "single"}, "action": {"type": "function", "name": "shipLogs"}}"#
        )
        #expect {
            try AppServicesImporter.read(exportDirectory: export.path)
        } throws: { error in
            (error as? ConfigurationErrors)?.description.contains(
                "log_forwarders/typo.json:1:32: unknown entry 'functon' in 'log_types' (did you mean 'function'?)")
                == true
        }
        try FileManager.default.removeItem(atPath: "\(export.path)/log_forwarders/typo.json")

        let imported = try AppServicesImporter.read(exportDirectory: export.path)
        #expect(
            imported.definition.logForwarders == [
                LogForwarder(
                    name: "ship", logTypes: [.function, .trigger], logStatuses: [.error, .success], policy: .batch,
                    action: .function("shipLogs"))
            ])
        #expect(
            imported.leftOut.map(\.description) == [
                "log_forwarders/archive.json: log forwarder 'archive' left out: its action type 's3' is not one Switchyard has (collection or function)"
            ])
        let function = try #require(imported.functions.first { $0.name == "shipLogs" })
        #expect(function.kind == .callable)
        #expect(function.usedBy == ["the `ship` log forwarder's function, given the array of forwarded records"])
    }

    @Test func olderLayoutsAndSettingsSwitchyardLeavesOut() throws {
        let export = try TemporaryDirectory()
        try export.write("config.json", #"{"app_id": "old-1", "environment": "production"}"#)
        try export.write(
            "auth_providers/local-userpass.json",
            #"{"name": "local-userpass", "type": "local-userpass", "config": {"autoConfirm": true, "emailConfirmationUrl": "https://x/confirm", "resetPasswordSubject": "Reset"}}"#
        )
        try export.write(
            "auth_providers/oauth2-google.json",
            #"{"name": "oauth2-google", "type": "oauth2-google", "config": {"clientId": "c"}}"#)
        try export.write("auth_providers/api-key.json", #"{"name": "api-key", "type": "api-key", "disabled": false}"#)
        try export.write("functions/greet/config.json", #"{"name": "greet", "private": true}"#)
        try export.write("functions/greet/source.js", "exports = (name) => `hi ${name}`;\n")
        try export.write("functions/node_modules.zip", "PK")
        try export.write("services/mongodb-atlas/config.json", #"{"name": "mongodb-atlas", "type": "mongodb-atlas"}"#)
        try export.write(
            "services/mongodb-atlas/rules/product.book.json", #"{"database": "product", "collection": "book"}"#)
        try export.write(
            "auth/custom_user_data.json", #"{"enabled": false, "on_user_creation_function_name": "seedUser"}"#)
        try export.write(
            "triggers/t.json",
            #"{"name": "t", "type": "DATABASE", "function_name": "greet2", "config": {"operation_types": ["INSERT"], "database": "d", "collection": "c", "unordered": true, "maximum_throughput": true}}"#
        )
        let imported = try AppServicesImporter.read(exportDirectory: export.path)
        #expect(imported.definition.appId == "old-1")
        #expect(imported.definition.functions["greet"] == FunctionSettings(isPrivate: true))
        #expect(imported.functions.first { $0.name == "greet" }?.parameters == ["name"])
        #expect(imported.definition.auth.providers == [.emailPassword, .apiKey, .google])
        #expect(
            imported.definition.auth.emailPassword
                == EmailPasswordSettings(autoConfirm: true, confirmEmailURL: "https://x/confirm"))
        #expect(
            imported.leftOut.map(\.description) == [
                "config.json: 'environment: production' left out: Switchyard takes the environment from --environment or SWITCHYARD_ENV (development by default)",
                "triggers/t.json: 'maximum_throughput' left out: Switchyard runs at most 10000 of its events at once, App Services' limit without it",
                "functions/node_modules.zip: npm dependencies left out: Swift functions cannot load them; use a Swift package or Foundation instead",
                "auth_providers/local-userpass.json: local-userpass settings 'resetPasswordSubject' left out: Switchyard sends no email",
                "auth_providers/oauth2-google.json: provider 'oauth2-google' is enabled in auth.providers but its logins and settings are left out: Switchyard's client API logs users in with anon-user, local-userpass and api-key",
                "auth/custom_user_data.json: 'on_user_creation_function_name: seedUser' left out: Switchyard runs no function on user creation here; an authentication trigger on CREATE does the same",
                "services/mongodb-atlas/rules/: rules in the older layout left out: Switchyard reads them as data_sources/<service>/<database>/<collection>/rules.json; export the app again with 'appservices pull' to get that layout",
            ])
    }

    /// A trigger's error handler (database or scheduled) becomes its `onFailure`, a callable given the failed event.
    @Test func aTriggersErrorHandlerBecomesItsOnFailure() throws {
        let export = try TemporaryDirectory()
        try export.write("functions/config.json", #"[{"name": "onBook"}, {"name": "tidy"}, {"name": "bookFailed"}]"#)
        try export.write("functions/onBook.js", "exports = function(changeEvent) {};\n")
        try export.write("functions/tidy.js", "exports = function() {};\n")
        try export.write("functions/bookFailed.js", "exports = function(error, changeEvent) {};\n")
        try export.write(
            "triggers/books.json",
            #"{"name": "books", "type": "DATABASE", "config": {"operation_types": ["INSERT"], "database": "product", "collection": "book"}, "event_processors": {"FUNCTION": {"config": {"function_name": "onBook"}}}, "error_handler": {"config": {"enabled": true, "function_name": "bookFailed"}}}"#
        )
        try export.write(
            "triggers/nightly.json",
            #"{"name": "nightly", "type": "SCHEDULED", "config": {"schedule": "0 3 * * *"}, "event_processors": {"FUNCTION": {"config": {"function_name": "tidy"}}}, "error_handler": {"config": {"enabled": true, "function_name": "bookFailed"}}}"#
        )
        let imported = try AppServicesImporter.read(exportDirectory: export.path)
        #expect(imported.definition.triggers.map(\.onFailure) == ["bookFailed", "bookFailed"])
        #expect(imported.functions.first { $0.name == "bookFailed" }?.kind == .callable)
        #expect(imported.leftOut.isEmpty, "\(imported.leftOut)")
    }

    /// `create_user_on_auth` makes users for custom JWT logins, which Switchyard does not serve: it says so.
    @Test func anEndpointsCreateUserOnAuthIsNamedAsLeftOut() throws {
        let export = try TemporaryDirectory()
        try export.write("functions/config.json", #"[{"name": "hook", "private": false}]"#)
        try export.write("functions/hook.js", "exports = function(request, response) {};\n")
        try export.write(
            "http_endpoints/config.json",
            #"[{"route": "/hook", "http_method": "POST", "function_name": "hook", "respond_result": true, "create_user_on_auth": true}]"#
        )
        let imported = try AppServicesImporter.read(exportDirectory: export.path)
        #expect(imported.definition.endpoints.map(\.route) == ["/hook"])
        #expect(
            imported.leftOut.map(\.description) == [
                "http_endpoints/config.json: `/hook`'s 'create_user_on_auth' left out: it makes users for custom JWT logins, a provider Switchyard does not serve"
            ])
    }

    @Test func aFunctionNameThatIsNoSwiftIdentifierIsRegisteredAsOne() throws {
        let export = try TemporaryDirectory()
        try export.write("functions/config.json", #"[{"name": "send-push", "private": true}]"#)
        try export.write("functions/send-push.js", "exports = function(token, text) {};\n")
        try export.write(
            "triggers/t.json",
            #"{"name": "t", "type": "SCHEDULED", "config": {"schedule": "0 * * * *"}, "event_processors": {"FUNCTION": {"config": {"function_name": "send-push"}}}}"#
        )
        let imported = try AppServicesImporter.read(exportDirectory: export.path)
        #expect(imported.renamedFunctions == ["send-push": "send_push"])
        #expect(imported.functionsToPort == ["send_push"])
        #expect(imported.definition.triggers.map(\.function) == ["send_push"])
        #expect(imported.definition.functions == ["send_push": FunctionSettings(isPrivate: true)])
        let files = Dictionary(try imported.files(package: package), uniquingKeysWith: { first, _ in first })
        #expect(files["functions/send_push.swift"]?.contains("func send_push(_ event: ScheduledEvent") == true)
        #expect(files["functions/js/send_push.js"] == "exports = function(token, text) {};\n")

        try export.write("functions/send_push.js", "exports = function() {};\n")
        #expect(throws: ConfigurationErrors.self) { try AppServicesImporter.read(exportDirectory: export.path) }
    }

    @Test func badEmailPasswordSettingsAreLocatedErrors() throws {
        let export = try TemporaryDirectory()
        try export.write(
            "auth/providers.json",
            #"{"local-userpass": {"type": "local-userpass", "config": {"autoConfirm": "yes", "runResetFunction": true}}}"#
        )
        let root = export.path
        do {
            _ = try AppServicesImporter.read(exportDirectory: root)
            Issue.record("imported")
        } catch {
            #expect(
                error.description.split(separator: "\n").map(String.init) == [
                    "\(root)/auth/providers.json:1:73: 'config.autoConfirm' must be true or false",
                    "\(root)/auth/providers.json:1:100: 'config.runResetFunction' is true but no function is named to run",
                ])
        }
        #expect(throws: ConfigurationErrors.self) {
            try AppDefinition.parse("auth:\n  emailPassword:\n    runResetFunction: true\n    autoConfirm: maybe\n")
        }
        let parsed = try AppDefinition.parse(
            "auth:\n  emailPassword:\n    autoConfirm: true\n    runResetFunction: true\n    resetFunction: reset\n")
        #expect(
            parsed.auth.emailPassword
                == EmailPasswordSettings(autoConfirm: true, runResetFunction: true, resetFunction: "reset"))
    }
}
