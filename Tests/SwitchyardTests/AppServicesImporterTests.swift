import BSON
import Foundation
import Switchyard
import TestSupport
import Testing

@Suite struct AppServicesImporterTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    let books = fixtures.appendingPathComponent("BooksExport").path
    let legacy = fixtures.appendingPathComponent("LegacyExport").path
    let package = AppScaffold(directory: "/tmp/books", dependency: .path("/tmp/switchyard"))

    func errorLines(_ body: () throws -> Void) -> [String] {
        do {
            try body()
            return []
        } catch {
            return "\(error)".split(separator: "\n").map(String.init)
        }
    }

    @Test func importsTheCurrentExportForm() throws {
        let imported = try AppServicesImporter.read(exportDirectory: books)
        let definition = imported.definition
        #expect(definition.appId == "books-qwert")
        #expect(definition.allowedRequestOrigins == ["https://books.example.com", "http://localhost:8080"])
        #expect(
            definition.triggers.map(\.name)
                == ["createUserData", "queueFavoriteBookUpdate", "retryUnprocessedNotifications", "sendBooksTopic"])
        let byName = Dictionary(uniqueKeysWithValues: definition.triggers.map { ($0.name, $0) })
        #expect(
            byName["sendBooksTopic"]
                == TriggerDefinition(
                    name: "sendBooksTopic", function: "sendBooksTopic",
                    kind: .database(
                        DatabaseTrigger(
                            scope: .collection(database: "product", collection: "book"),
                            operations: [.insert, .delete],
                            fullDocument: true, fullDocumentBeforeChange: true))))
        #expect(
            byName["queueFavoriteBookUpdate"]
                == TriggerDefinition(
                    name: "queueFavoriteBookUpdate", function: "queueFavoriteBookUpdate", disabled: true,
                    kind: .database(
                        DatabaseTrigger(
                            scope: .collection(database: "product", collection: "book"),
                            operations: [.update, .replace],
                            fullDocument: true,
                            match: [
                                "updateDescription.updatedFields.title": ["$exists": true],
                                "fullDocument.publisher": .objectId(ObjectId(hex: "6512c0f1a2b3c4d5e6f70899")!),
                            ],
                            project: ["fullDocument._id": .int32(1), "fullDocument.title": .int32(1)],
                            delivery: .unordered(maxConcurrency: DeliveryOrder.appServicesMaxConcurrency),
                            skipCatchupEvents: true, tolerateResumeErrors: true))))
        #expect(
            byName["retryUnprocessedNotifications"]?.kind
                == .scheduled(ScheduledTrigger(schedule: try CronSchedule("*/5 * * * *"), skipCatchupEvents: true)))
        #expect(
            byName["createUserData"]?.kind
                == .authentication(AuthenticationTrigger(operation: .create, providers: [.anonymous, .emailPassword])))
        #expect(
            definition.functions["retryUnprocessedNotifications"]
                == FunctionSettings(isPrivate: true, runAsSystem: true))
        #expect(definition.functions["updateFCMUserToken"]?.canEvaluate == ["%%user.data.email": ["$exists": true]])
        #expect(definition.auth.providers == [.anonymous, .emailPassword])
        #expect(
            definition.auth.emailPassword
                == EmailPasswordSettings(autoConfirm: true, resetPasswordURL: "https://example.com/reset"))
        #expect(
            definition.auth.customUserData
                == AuthSettings.CustomUserData(database: "product", collection: "customUserData", userIdField: "userId")
        )
        #expect(
            imported.values
                == ValueDefinitions([
                    .init(name: "booksTopic", value: .plain("books")),
                    .init(name: "fcmServiceAccount", value: .secret(name: "fcmServiceAccountKey")),
                    .init(
                        name: "retryPolicy",
                        value: .plain([
                            "maxAttempts": .int32(5), "backoffSeconds": [1, 5, 30], "jitter": .double(0.25),
                        ])),
                ]))
        #expect(
            imported.environments[.production]
                == ValueDefinitions([.init(name: "booksTopic", value: .plain("books-production"))]))
        #expect(imported.environments[.development] == ValueDefinitions())
        #expect(
            imported.functionsToPort
                == [
                    "createUserData", "queueFavoriteBookUpdate", "retryUnprocessedNotifications", "sendBooksTopic",
                    "updateFCMUserToken",
                ])
        #expect(imported.secretsNeeded == ["fcmServiceAccountKey"])
    }

    @Test func importsTheLegacyExportForm() throws {
        let imported = try AppServicesImporter.read(exportDirectory: legacy)
        #expect(imported.definition.appId == "legacy-books-abcde")
        let byName = Dictionary(uniqueKeysWithValues: imported.definition.triggers.map { ($0.name, $0) })
        #expect(
            byName["sendQueuedNotification"]
                == TriggerDefinition(
                    name: "sendQueuedNotification", function: "sendQueuedNotification",
                    kind: .database(
                        DatabaseTrigger(
                            scope: .collection(database: "product", collection: "pushNotification"),
                            operations: [.insert],
                            fullDocument: true, match: ["fullDocument.processed": false]))))
        #expect(
            byName["auditEverything"]?.kind
                == .database(DatabaseTrigger(scope: .deployment, operations: Set(DatabaseOperation.documentOperations)))
        )
        #expect(
            byName["onLogin"]
                == TriggerDefinition(
                    name: "onLogin", function: "recordLogin", disabled: true,
                    kind: .authentication(
                        AuthenticationTrigger(operation: .login, providers: [.google, .apple, .customJWT]))))
        #expect(imported.definition.auth == AuthSettings())
        #expect(
            imported.environments[.production]
                == ValueDefinitions([.init(name: "supportEmail", value: .plain("support-prod@example.com"))]))
        #expect(imported.functionsToPort == ["audit", "recordLogin", "sendQueuedNotification"])
    }

    @Test(arguments: ["BooksExport", "LegacyExport"])
    func writtenFilesLoadBackAsTheImportedModel(export: String) throws {
        let imported = try AppServicesImporter.read(exportDirectory: Self.fixtures.appendingPathComponent(export).path)
        #expect(try AppDefinition.parse(try imported.definition.yamlText()) == imported.definition)
        let output = try TemporaryDirectory()
        try imported.write(to: output.path, package: package)
        for environment in AppEnvironment.allCases {
            let configuration = try AppConfiguration.load(
                directory: output.path, environment: environment, registeredFunctions: Set(imported.functionsToPort),
                variables: [SecretStore.variableName(for: "fcmServiceAccountKey"): "{}"])
            #expect(configuration.definition == imported.definition)
            var expected = imported.values.entries
            for override in imported.environments[environment]?.entries ?? [] {
                if let index = expected.firstIndex(where: { $0.name == override.name }) {
                    expected[index] = override
                } else {
                    expected.append(override)
                }
            }
            #expect(configuration.values.names == expected.map(\.name))
            for entry in expected {
                switch entry.value {
                case .plain(let value): #expect(configuration.values[entry.name] == .plain(value))
                case .secret(let name):
                    #expect(configuration.values[entry.name] == .secret(Secret(name: name, value: "{}")))
                }
            }
        }
    }

    @Test func writesAPackageWithAStubForEveryFunctionToPort() throws {
        let imported = try AppServicesImporter.read(exportDirectory: legacy)
        let output = try TemporaryDirectory()
        let written = try imported.write(to: output.path, package: package)
        #expect(
            written.map { String($0.dropFirst(output.path.count + 1)) }.sorted()
                == [
                    ".gitignore", "Package.swift", "README.md", "Sources/Books/main.swift",
                    "Tests/BooksTests/BooksTests.swift", "environments/production.json",
                    "functions/_NotPortedYet.swift",
                    "functions/audit.swift", "functions/recordLogin.swift", "functions/sendQueuedNotification.swift",
                    "triggers.yaml", "values.json",
                ])
        // The legacy export holds no JavaScript: the stubs say so, and the target excludes nothing.
        #expect(
            output.read("functions/audit.swift")
                == """
                import Switchyard

                /// `audit`, the `auditEverything` database trigger's function, imported from App Services.
                ///
                /// The export holds no JavaScript for it; write it in Swift. Until then every run fails with
                /// `NotPortedYet` naming it.
                func audit(_ event: ChangeEvent, _ context: FunctionContext) async throws {
                    throw NotPortedYet("audit")
                }

                """)
        #expect(output.read("Package.swift")?.contains("exclude:") == false)
        #expect(output.read("functions/_NotPortedYet.swift")?.contains("not ported yet: \\(function)") == true)
        #expect(FunctionStub.identifier(for: "utils/send-push") == "utils_send_push")
        #expect(FunctionStub.identifier(for: "2fa") == "_2fa")
        #expect(FunctionStub.identifier(for: "default") == "default_")
        // No temporary files are left behind.
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: output.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func refusesToOverwriteWithoutForce() throws {
        let imported = try AppServicesImporter.read(exportDirectory: legacy)
        let output = try TemporaryDirectory()
        try output.write("triggers.yaml", "# mine\n")
        #expect(
            errorLines { try imported.write(to: output.path, package: package) }
                == ["refusing to overwrite existing files (use --force to replace them): \(output.path)/triggers.yaml"])
        // Nothing was written: not even the files that did not exist.
        #expect(output.read("triggers.yaml") == "# mine\n")
        #expect(output.read("values.json") == nil)
        try imported.write(to: output.path, package: package, force: true)
        #expect(try AppDefinition.parse(output.read("triggers.yaml") ?? "") == imported.definition)
    }

    @Test func importsDDLOperationTypesAndNotesTheShardingOnesNeverFire() throws {
        let export = try TemporaryDirectory()
        let function = #""event_processors": {"FUNCTION": {"config": {"function_name": "onSchema"}}}"#
        try export.write(
            "triggers/schema.json",
            #"{"name": "schema", "type": "DATABASE", "config": {"database": "app", "operation_types": ["CREATE_COLLECTION", "CREATE_INDEXES", "DROP_INDEXES", "SHARD_COLLECTION"]}, "#
                + function + "}")
        try export.write(
            "triggers/cluster.json",
            #"{"name": "cluster", "type": "DATABASE", "config": {"operation_types": ["DROP_DATABASE", "RENAME_COLLECTION"]}, "#
                + function + "}")
        let imported = try AppServicesImporter.read(exportDirectory: export.path)
        let byName = Dictionary(uniqueKeysWithValues: imported.definition.triggers.map { ($0.name, $0.kind) })
        #expect(
            byName["schema"]
                == .database(
                    DatabaseTrigger(
                        scope: .database("app"),
                        operations: [.createCollection, .createIndexes, .dropIndexes, .shardCollection])))
        #expect(
            byName["cluster"]
                == .database(DatabaseTrigger(scope: .deployment, operations: [.dropDatabase, .renameCollection])))
        #expect(
            imported.leftOut == [
                ImportNote(
                    "triggers/schema.json",
                    "operation type 'SHARD_COLLECTION' kept but never fires: Switchyard's store has no sharding")
            ])
        let output = try TemporaryDirectory()
        try imported.write(to: output.path, package: package)
        #expect(try AppDefinition.parse(output.read("triggers.yaml") ?? "") == imported.definition)
    }

    @Test func refusesADDLOperationTypeOnACollectionTrigger() throws {
        let export = try TemporaryDirectory()
        try export.write(
            "triggers/books.json",
            #"{"name": "books", "type": "DATABASE", "function_name": "f", "config": {"database": "app", "collection": "books", "operation_types": ["INSERT", "DROP_COLLECTION"]}}"#
        )
        let root = export.path
        #expect(
            errorLines { _ = try AppServicesImporter.read(exportDirectory: root) } == [
                "\(root)/triggers/books.json:1:144: operation type 'DROP_COLLECTION' is only for database and deployment triggers (ones that name no collection)"
            ])
    }

    @Test func reportsProblemsInExportFilesWithPositions() throws {
        let export = try TemporaryDirectory()
        try export.write(
            "triggers/a.json",
            """
            {
              "name": "a",
              "type": "DATABASE",
              "function_name": "f",
              "config": {"operation_types": ["INSERT", "UPSERT"], "full_document": "yes", "match": "{bad"}
            }
            """)
        try export.write(
            "triggers/b.json",
            #"{"name": "b", "type": "SCHEDULED", "config": {"schedule": "0 0 * * 8"}, "event_processors": {"FUNCTION": {"config": {"function_name": "g"}}}}"#
        )
        try export.write("triggers/c.json", #"{"name": "a", "type": "WEBHOOK", "function_name": "f", "config": {}}"#)
        try export.write(
            "triggers/d.json",
            #"{"name": "d", "type": "AUTHENTICATION", "config": {"operation_type": "SIGNUP", "providers": ["local-userpas"]}}"#
        )
        try export.write("values/v.json", #"{"name": "v", "value": "x", "from_secret": "yes"}"#)
        try export.write("environments/staging.json", "{}")
        try export.write("auth/providers.json", #"{"p": {"name": "p", "type": "oauth2-github"}}"#)
        try export.write("auth/custom_user_data.json", #"{"enabled": true, "database_name": "db"}"#)
        let root = export.path
        #expect(
            errorLines { _ = try AppServicesImporter.read(exportDirectory: root) } == [
                "\(root)/auth/custom_user_data.json:1:1: enabled custom user data needs 'collection_name'",
                "\(root)/auth/custom_user_data.json:1:1: enabled custom user data needs 'user_id_field'",
                "\(root)/auth/providers.json:1:29: unsupported authentication provider 'oauth2-github'",
                "\(root)/environments/staging.json: unknown environment 'staging'",
                "\(root)/triggers/a.json:5:44: unsupported operation type 'UPSERT' (did you mean 'INSERT'?)",
                "\(root)/triggers/a.json:5:72: 'config.full_document' must be true or false",
                "\(root)/triggers/a.json:5:88: 'config.match' must be an object or a string holding a JSON object",
                "\(root)/triggers/b.json:1:68: 8 is out of range for the weekday field (0-6)",
                "\(root)/triggers/c.json:1:23: unsupported trigger type 'WEBHOOK'",
                "\(root)/triggers/d.json:1:1: trigger calls no function (give event_processors.FUNCTION.config.function_name)",
                "\(root)/triggers/d.json:1:70: 'config.operation_type' must be one of CREATE, LOGIN or DELETE",
                "\(root)/triggers/d.json:1:94: unsupported authentication provider 'local-userpas' (did you mean 'local-userpass'?)",
                "\(root)/values/v.json:1:44: 'from_secret' must be true or false",
            ])
    }
}
