import BSON
import Switchyard
import Testing

@Suite struct AppDefinitionTests {
    /// The error lines `triggers.yaml` text produces, or [] when it parses.
    func errors(_ text: String, registered: Set<String>? = nil) -> [String] {
        do {
            _ = try AppDefinition.parse(text, file: "triggers.yaml", registeredFunctions: registered)
            return []
        } catch {
            return error.description.split(separator: "\n").map(String.init)
        }
    }

    @Test func readsEveryTriggerTypeWithDefaults() throws {
        let definition = try AppDefinition.parse(
            """
            appId: books-abcde
            triggers:
              - name: sendBooksTopic
                type: database
                function: sendBooksTopic
                database: product
                collection: book
                operations: [insert, Delete]
                fullDocument: true
                match:
                  operationType: insert
                  fullDocument.price: {$gt: 10, $lte: 2.5e3}
                  fullDocument.tag: "42"
                  fullDocument.count: 3000000000
                  fullDocument.owner: {$oid: "64b7f0c2a1b2c3d4e5f60718"}
                  fullDocument.missing: ~
                  fullDocument.on: [true, null, "true"]
                project: {fullDocument: 1}
              - name: everything-in-db
                type: database
                function: audit
                database: product
                operations: [UPDATE]
                ordered: false
                maxConcurrency: 4
                retry: {maxAttempts: 2, initialBackoff: 500ms, maxBackoff: 1m30s}
              - name: deployment_wide
                type: DATABASE
                function: audit
                database: "*"
                operations: [REPLACE]
                ordered: false
              - name: nightly
                type: scheduled
                function: report
                schedule: "0 3 * * *"
                skipCatchupEvents: true
                disabled: true
              - name: onCreate
                type: authentication
                function: createUserData
                operation: CREATE
                providers: [anon-user, local-userpass]
            functions:
              createUserData: {private: true, runAsSystem: true}
              report:
                canEvaluate: {"%%user.custom_data.role": admin}
            auth:
              providers: [local-userpass, api-key]
              customUserData: {database: product, collection: users, userIdField: userId}
            """)
        #expect(definition.appId == "books-abcde")
        #expect(
            definition.triggers.map(\.name) == [
                "sendBooksTopic", "everything-in-db", "deployment_wide", "nightly", "onCreate",
            ])
        guard case .database(let books) = definition.triggers[0].kind else {
            Issue.record("not a database trigger")
            return
        }
        #expect(books.scope == .collection(database: "product", collection: "book"))
        #expect(books.operations == [.insert, .delete])
        #expect(books.fullDocument && !books.fullDocumentBeforeChange)
        #expect(books.delivery == .ordered)
        #expect(books.retry == RetryPolicy(maxAttempts: 5, initialBackoff: .seconds(1), maxBackoff: .seconds(60)))
        let expectedMatch: BSONDocument = [
            "operationType": "insert",
            "fullDocument.price": ["$gt": .int32(10), "$lte": .double(2500)],
            "fullDocument.tag": "42",
            "fullDocument.count": .int64(3_000_000_000),
            "fullDocument.owner": .objectId(ObjectId(hex: "64b7f0c2a1b2c3d4e5f60718")!),
            "fullDocument.missing": .null,
            "fullDocument.on": [true, .null, "true"],
        ]
        #expect(books.match == expectedMatch)
        #expect(books.project == ["fullDocument": .int32(1)])

        guard case .database(let wholeDatabase) = definition.triggers[1].kind,
            case .database(let deployment) = definition.triggers[2].kind,
            case .scheduled(let nightly) = definition.triggers[3].kind,
            case .authentication(let onCreate) = definition.triggers[4].kind
        else {
            Issue.record("wrong trigger kinds")
            return
        }
        #expect(wholeDatabase.scope == .database("product"))
        #expect(wholeDatabase.delivery == .unordered(maxConcurrency: 4))
        #expect(
            wholeDatabase.retry
                == RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(500), maxBackoff: .seconds(90)))
        #expect(deployment.scope == .deployment)
        #expect(deployment.delivery == .unordered(maxConcurrency: DeliveryOrder.defaultMaxConcurrency))
        #expect(nightly.schedule.expression == "0 3 * * *" && nightly.skipCatchupEvents)
        #expect(definition.triggers[3].disabled && !definition.triggers[0].disabled)
        #expect(onCreate == AuthenticationTrigger(operation: .create, providers: [.anonymous, .emailPassword]))
        #expect(definition.functions["createUserData"] == FunctionSettings(isPrivate: true, runAsSystem: true))
        #expect(definition.functions["report"]?.canEvaluate == ["%%user.custom_data.role": "admin"])
        #expect(definition.auth.providers == [.emailPassword, .apiKey])
        #expect(
            definition.auth.customUserData
                == AuthSettings.CustomUserData(database: "product", collection: "users", userIdField: "userId"))
    }

    @Test func unknownKeysAndOperationsSuggestTheClosestName() {
        #expect(
            errors(
                """
                triggers:
                  - name: a
                    type: database
                    function: f
                    database: d
                    colection: c
                    operations: [INSRT, update, FLUSH]
                """)
                == [
                    "triggers.yaml:6:5: unknown key 'colection' (did you mean 'collection'?)",
                    "triggers.yaml:7:18: unknown operation type 'INSRT' (did you mean 'INSERT'?)",
                    "triggers.yaml:7:33: unknown operation type 'FLUSH'",
                ])
    }

    @Test func ddlOperationTypesAreReadWhereAtlasAllowsThem() throws {
        let definition = try AppDefinition.parse(
            """
            triggers:
              - name: schema
                type: database
                function: f
                database: app
                operations: [CREATE_COLLECTION, modify_collection, RENAME_COLLECTION, DROP_COLLECTION, CREATE_INDEXES,
                             DROP_INDEXES, SHARD_COLLECTION, RESHARD_COLLECTION, REFINE_COLLECTION_SHARD_KEY]
              - name: cluster
                type: database
                function: f
                database: "*"
                operations: [DROP_DATABASE, INSERT]
            """, file: "triggers.yaml")
        let operations = definition.triggers.map { trigger -> Set<DatabaseOperation> in
            guard case .database(let database) = trigger.kind else { return [] }
            return database.operations
        }
        #expect(
            operations[0]
                == Set(DatabaseOperation.allCases).subtracting(DatabaseOperation.documentOperations + [.dropDatabase]))
        #expect(operations[1] == [.dropDatabase, .insert])
        // Written back as read.
        #expect(try AppDefinition.parse(try definition.yamlText(), file: "triggers.yaml") == definition)
    }

    @Test func ddlOperationTypesOutsideTheirScopeAreRefusedAndTyposSuggested() {
        #expect(
            errors(
                """
                triggers:
                  - name: a
                    type: database
                    function: f
                    database: d
                    collection: c
                    operations: [INSERT, CREATE_INDEXES, DROP_DATABASE]
                  - name: b
                    type: database
                    function: f
                    database: d
                    operations: [DROP_DATABASE, CREATE_INDEX, DROP_COLECTION]
                """)
                == [
                    "triggers.yaml:7:26: operation type 'CREATE_INDEXES' is only for database and deployment triggers (ones that name no collection)",
                    "triggers.yaml:7:42: operation type 'DROP_DATABASE' is only for deployment triggers (ones that watch every database)",
                    "triggers.yaml:12:18: operation type 'DROP_DATABASE' is only for deployment triggers (ones that watch every database)",
                    "triggers.yaml:12:33: unknown operation type 'CREATE_INDEX' (did you mean 'CREATE_INDEXES'?)",
                    "triggers.yaml:12:47: unknown operation type 'DROP_COLECTION' (did you mean 'DROP_COLLECTION'?)",
                ])
    }

    @Test func keysOfAnotherTriggerTypeAreNamedAsSuch() {
        #expect(
            errors(
                """
                triggers:
                  - name: a
                    type: database
                    function: f
                    database: d
                    operations: [INSERT]
                    schedule: "* * * * *"
                    providers: [anon-user]
                  - name: b
                    type: scheduled
                    function: f
                    schedule: "* * * * *"
                    collection: c
                """)
                == [
                    "triggers.yaml:7:5: 'schedule' is not a key of database triggers",
                    "triggers.yaml:8:5: 'providers' is not a key of database triggers",
                    "triggers.yaml:13:5: 'collection' is not a key of scheduled triggers",
                ])
    }

    @Test func typeErrorsNameTheExpectedType() {
        #expect(
            errors(
                """
                triggers:
                  - name: a
                    type: database
                    function: f
                    database: d
                    operations: INSERT
                    ordered: "false"
                    fullDocument: yes
                    disabled: 1
                    maxConcurrency: 5
                    retry: {maxAttempts: 0, initialBackoff: soon, maxBackoff: 1s}
                    match: [1]
                """)
                == [
                    "triggers.yaml:6:17: 'operations' must be a list, found a scalar",
                    "triggers.yaml:7:14: 'ordered' must be true, false or byDocumentKey",
                    "triggers.yaml:8:19: 'fullDocument' must be true or false",
                    "triggers.yaml:9:15: 'disabled' must be true or false",
                    "triggers.yaml:10:21: 'maxConcurrency' applies only to unordered or per-document triggers (add 'ordered: false' or 'ordered: byDocumentKey')",
                    "triggers.yaml:11:26: 'maxAttempts' must be a whole number from 1 to 1000",
                    "triggers.yaml:11:45: 'initialBackoff' must be a duration like 500ms, 2s, 1m or 1h",
                    "triggers.yaml:12:12: a document must be a mapping, found a sequence",
                ])
    }

    @Test func readsPerDocumentOrderWithItsDefaultConcurrency() throws {
        let definition = try AppDefinition.parse(
            """
            triggers:
              - {name: a, type: database, function: f, database: d, operations: [UPDATE], ordered: byDocumentKey}
              - name: b
                type: database
                function: f
                database: d
                operations: [UPDATE]
                ordered: "byDocumentKey"
                maxConcurrency: 8
            """, file: "triggers.yaml")
        let deliveries = definition.triggers.compactMap { trigger -> DeliveryOrder? in
            guard case .database(let database) = trigger.kind else { return nil }
            return database.delivery
        }
        #expect(
            deliveries == [
                .byDocumentKey(maxConcurrency: DeliveryOrder.defaultMaxConcurrency), .byDocumentKey(maxConcurrency: 8),
            ])
        #expect(DeliveryOrder.defaultMaxConcurrency == 10)
        // Written back as it was read.
        let written = try definition.yamlText()
        #expect(written.contains("ordered: byDocumentKey\n    maxConcurrency: 8\n"))
        #expect(try AppDefinition.parse(written, file: "triggers.yaml").triggers == definition.triggers)
    }

    @Test func aMisspelledOrderSuggestsTheClosestMode() {
        let trigger = "triggers:\n  - {name: a, type: database, function: f, database: d, operations: [UPDATE], "
        #expect(
            errors(trigger + "ordered: byDocumentkey}\n") == [
                "triggers.yaml:2:88: 'ordered' must be true, false or byDocumentKey (did you mean 'byDocumentKey'?)"
            ])
        #expect(
            errors(trigger + "ordered: byDocKey}\n") == [
                "triggers.yaml:2:88: 'ordered' must be true, false or byDocumentKey"
            ])
        #expect(
            errors(trigger + "ordered: fasle}\n") == [
                "triggers.yaml:2:88: 'ordered' must be true, false or byDocumentKey (did you mean 'false'?)"
            ])
        #expect(
            errors(trigger + "ordered: byDocumentKey, maxConcurrency: 0}\n") == [
                "triggers.yaml:2:119: 'maxConcurrency' must be a whole number from 1 to 10000"
            ])
    }

    @Test func missingKeysPointAtTheTrigger() {
        #expect(
            errors(
                """
                triggers:
                  - name: a
                    type: database
                    collection: c
                  - type: authentication
                    function: f
                    operation: signup
                    providers: [local-userpas, []]
                  - name: bad name!
                    type: timer
                    function: f
                """)
                == [
                    "triggers.yaml:2:5: missing required key 'function' in trigger 'a'",
                    "triggers.yaml:2:5: missing required key 'database' in trigger 'a' (use \"*\" to watch every database)",
                    "triggers.yaml:2:5: missing required key 'operations' in trigger 'a'",
                    "triggers.yaml:5:5: missing required key 'name'",
                    "triggers.yaml:7:16: unknown authentication operation 'signup' (expected create, login or delete)",
                    "triggers.yaml:8:17: unknown authentication provider 'local-userpas' (did you mean 'local-userpass'?) (providers: anon-user, local-userpass, api-key, custom-token, custom-function, oauth2-google, oauth2-apple, oauth2-facebook)",
                    "triggers.yaml:8:32: a provider must be a string",
                    "triggers.yaml:9:11: trigger name 'bad name!' may only contain letters, digits, '_' and '-'",
                    "triggers.yaml:10:11: unknown trigger type 'timer' (expected database, scheduled or authentication)",
                ])
    }

    @Test func rangesAndScopesAreChecked() {
        #expect(
            errors(
                """
                triggers:
                  - name: a
                    type: database
                    function: f
                    database: "*"
                    collection: c
                    operations: [INSERT, INSERT]
                    ordered: false
                    maxConcurrency: 10001
                    retry:
                      initialBackoff: 2m
                      maxBackoff: 1m
                      maxAttempt: 3
                """)
                == [
                    "triggers.yaml:6:17: 'collection' needs a specific database, not '*'",
                    "triggers.yaml:7:26: duplicate operation type 'INSERT'",
                    "triggers.yaml:9:21: 'maxConcurrency' must be a whole number from 1 to 10000",
                    "triggers.yaml:12:19: 'maxBackoff' (1m) must not be shorter than 'initialBackoff' (2m)",
                    "triggers.yaml:13:7: unknown key 'maxAttempt' (did you mean 'maxAttempts'?)",
                ])
    }

    @Test func scheduleErrorsPointInsideTheExpression() {
        #expect(
            errors(
                """
                triggers:
                  - name: a
                    type: scheduled
                    function: f
                    schedule: "0 0 */2 * *"
                  - name: b
                    type: scheduled
                    function: f
                    schedule: 0 0 * JNA *
                """)
                == [
                    "triggers.yaml:5:21: steps ('/') are only allowed in the minute and hour fields, not in the dayOfMonth field",
                    "triggers.yaml:9:21: 'JNA' is not a valid month value, expected a number or one of JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC (did you mean 'JAN'?)",
                ])
    }

    @Test func duplicateNamesPointAtTheSecondWithANoteAboutTheFirst() {
        #expect(
            errors(
                """
                triggers:
                  - name: nightly
                    type: scheduled
                    function: f
                    schedule: "0 0 * * *"
                  - name: nightly
                    type: scheduled
                    function: f
                    schedule: "0 1 * * *"
                """)
                == [
                    "triggers.yaml:6:11: duplicate trigger name 'nightly'",
                    "triggers.yaml:2:11: note: 'nightly' is first defined here",
                ])
    }

    @Test func onSuspendNamesARegisteredFunctionOfADatabaseOrScheduledTrigger() {
        let registered: Set = ["sendBooksTopic", "alertOnCall"]
        #expect(
            errors(
                """
                triggers:
                  - {name: a, type: scheduled, function: sendBooksTopic, schedule: "* * * * *", onSuspend: alertOnCal}
                  - {name: b, type: database, function: sendBooksTopic, database: d, operations: [INSERT], onSuspend: ""}
                  - {name: c, type: authentication, function: sendBooksTopic, operation: create, onSuspend: alertOnCall, providers: [anon-user]}
                  - {name: d, type: database, function: sendBooksTopic, database: d, operations: [INSERT], onSuspend: [x]}
                """, registered: registered)
                == [
                    "triggers.yaml:2:92: unknown function 'alertOnCal' (did you mean 'alertOnCall'? registered: alertOnCall, sendBooksTopic)",
                    "triggers.yaml:3:103: 'onSuspend' must name a function (leave it out for none)",
                    "triggers.yaml:4:82: 'onSuspend' is not a key of authentication triggers",
                    "triggers.yaml:5:103: 'onSuspend' must be a string",
                ])
    }

    @Test func unknownFunctionsListTheRegisteredOnes() {
        let registered: Set = ["sendBooksTopic", "createUserData"]
        #expect(
            errors(
                """
                triggers:
                  - name: a
                    type: scheduled
                    function: sendBookTopic
                    schedule: "0 0 * * *"
                functions:
                  report: {}
                """, registered: registered)
                == [
                    "triggers.yaml:4:15: unknown function 'sendBookTopic' (did you mean 'sendBooksTopic'? registered: createUserData, sendBooksTopic)",
                    "triggers.yaml:7:3: unknown function 'report' (registered: createUserData, sendBooksTopic)",
                ])
        #expect(
            errors("triggers:\n  - {name: a, type: scheduled, function: f, schedule: \"* * * * *\"}\n", registered: [])
                == ["triggers.yaml:2:42: unknown function 'f' (no functions are registered)"])
    }

    @Test func matchAndProjectTheStoreRefusesAreReportedAtTheOperator() {
        let trigger =
            "triggers:\n  - name: a\n    type: database\n    function: f\n    database: d\n    operations: [INSERT]\n"
        #expect(
            errors(trigger + "    match: {fullDocument.n: {$eqq: 1}}\n") == [
                "triggers.yaml:7:30: 'match': unknown operator: $eqq"
            ])
        #expect(errors(trigger + "    match: {a: {$in: 5}}\n") == ["triggers.yaml:7:17: 'match': $in needs an array"])
        #expect(
            errors(trigger + "    match: {$where: \"this.a\"}\n") == [
                "triggers.yaml:7:13: 'match': $where is not supported: Switchyard does not run JavaScript in queries"
            ])
        #expect(
            errors(trigger + "    match: {a: {$regex: \"(\"}}\n").first?.hasPrefix("triggers.yaml:7:17: 'match': ")
                == true)
        #expect(
            errors(trigger + "    project: {a: {$bogus: 1}}\n").first?.hasPrefix("triggers.yaml:7:19: 'project': ")
                == true)
        #expect(
            errors(trigger + "    project: {fullDocument: 1, _id: 0}\n") == [
                "triggers.yaml:7:32: 'project' must keep _id: it holds the event's resume token"
            ])
        #expect(
            errors(trigger + "    match: {a: {$in: [1]}, b: {$regex: \"^x\", $options: i}}\n    project: {a: 1}\n")
                == [])
    }

    @Test func anUnknownProviderListsTheValidOnes() {
        #expect(
            errors(
                "triggers:\n  - {name: a, type: authentication, function: f, operation: create, providers: [anonymous]}\n"
            )
                == [
                    "triggers.yaml:2:81: unknown authentication provider 'anonymous' (providers: anon-user, local-userpass, api-key, custom-token, custom-function, oauth2-google, oauth2-apple, oauth2-facebook)"
                ])
    }

    @Test func topLevelProblems() {
        #expect(
            errors("- a\n- b\n") == [
                "triggers.yaml:1:1: the top level of triggers.yaml must be a mapping, found a sequence"
            ])
        #expect(errors("trigers: []\n") == ["triggers.yaml:1:1: unknown key 'trigers' (did you mean 'triggers'?)"])
        #expect(
            errors("triggers: [\n") == [
                "triggers.yaml:1:11: this '[' is not closed (did not find expected node content at 2:1)"
            ])
        #expect(
            errors(
                "triggers:\n  - name: a\n    operations: [INSERT, DELETE\n    fullDocument: true\n    ordered: true\n")
                == ["triggers.yaml:3:17: this '[' is not closed (did not find expected ',' or ']' at 4:17)"])
        #expect(errors("") == [])
        #expect(
            errors(
                "triggers:\n  - name: a\n    type: scheduled\n    function: f\n    schedule: \"* * * * *\"\n    match: {$oid: 12}\n"
            )
                == ["triggers.yaml:6:5: 'match' is not a key of scheduled triggers"])
    }

    @Test func extendedJSONWrappersMustBeWellFormed() {
        let text = """
            triggers:
              - name: a
                type: database
                function: f
                database: d
                operations: [INSERT]
                match:
                  a: {$oid: "zz"}
                  b: {$numberLong: "1.5"}
                  c: {$date: "yesterday"}
                  d: {$numberDecimal: "1.5"}
                  e: {$date: "2024-02-29T12:00:00.5+01:00"}
                  f: 99999999999999999999
            """
        #expect(
            errors(text) == [
                "triggers.yaml:8:17: '$oid' must be a string of 24 hexadecimal digits",
                "triggers.yaml:9:24: '$numberLong' must be a string holding a 64-bit integer",
                "triggers.yaml:10:18: '$date' must be an ISO-8601 string, milliseconds, or {\"$numberLong\": \"…\"}",
                "triggers.yaml:11:27: Extended JSON '$numberDecimal' is not supported in configuration files",
                "triggers.yaml:13:10: integer out of range (more than 64 bits)",
            ])
    }

    @Test func datesAndNumbersConvertExactly() throws {
        let definition = try AppDefinition.parse(
            """
            triggers:
              - name: a
                type: database
                function: f
                database: d
                operations: [INSERT]
                match:
                  at: {$date: "2024-02-29T12:00:00.5+01:00"}
                  ms: {$date: {$numberLong: "-1"}}
                  big: {$numberLong: "5"}
                  hex: 0x1F
                  neg: -.inf
                  plainWord: yes
            """)
        guard case .database(let trigger) = definition.triggers.first?.kind else {
            Issue.record("not a database trigger")
            return
        }
        #expect(trigger.match["at"] == .datetime(BSONDate(millisecondsSinceEpoch: 1_709_204_400_500)))
        #expect(trigger.match["ms"] == .datetime(BSONDate(millisecondsSinceEpoch: -1)))
        #expect(trigger.match["big"] == .int64(5))
        #expect(trigger.match["hex"] == .int32(31))
        #expect(trigger.match["neg"] == .double(-.infinity))
        #expect(trigger.match["plainWord"] == "yes")
    }

    @Test func functionTimeoutsDefaultToFiveMinutesAndCanBeSetPerAppAndFunction() throws {
        #expect(AppDefinition().timeout(for: "any") == .seconds(300))
        let definition = try AppDefinition.parse(
            """
            functionTimeout: 2m
            functions:
              slowReport: {timeout: 10m}
              quick: {timeout: 500ms}
              other: {}
            """)
        #expect(definition.timeout(for: "slowReport") == .seconds(600))
        #expect(definition.timeout(for: "quick") == .milliseconds(500))
        #expect(definition.timeout(for: "other") == .seconds(120))
        #expect(definition.timeout(for: "unlisted") == .seconds(120))
        #expect(
            errors(
                """
                functionTimeout: soon
                functions:
                  f: {timeout: 0s}
                """)
                == [
                    "triggers.yaml:1:18: 'functionTimeout' must be a duration like 500ms, 2s, 1m or 1h",
                    "triggers.yaml:3:16: 'timeout' must be longer than 0ms",
                ])
    }

    @Test func allowedRequestOriginsAreAListOfStrings() throws {
        let definition = try AppDefinition.parse(
            """
            allowedRequestOrigins: [https://books.example, "http://localhost:3000"]
            """)
        #expect(definition.allowedRequestOrigins == ["https://books.example", "http://localhost:3000"])
        #expect(AppDefinition().allowedRequestOrigins.isEmpty)
        #expect(!errors("allowedRequestOrigins: https://books.example").isEmpty)
    }

    @Test func indexesNameTheirCollectionAndKeys() throws {
        let definition = try AppDefinition.parse(
            """
            indexes:
              - database: product
                collection: pushNotification
                keys: {processed: 1, date: -1}
              - {database: product, collection: user, keys: {email: 1}, unique: true, name: byEmail}
            """)
        #expect(
            definition.indexes == [
                IndexDeclaration(
                    database: "product", collection: "pushNotification", keys: ["processed": 1, "date": -1]),
                IndexDeclaration(
                    database: "product", collection: "user", keys: ["email": 1], unique: true, name: "byEmail"),
            ])
        #expect(
            errors("indexes:\n  - database: product\n    colection: c\n    keys: {a: 2, b: up}\n    unique: maybe\n")
                == [
                    "triggers.yaml:2:5: missing required key 'collection' in an index",
                    "triggers.yaml:3:5: unknown key 'colection' (did you mean 'collection'?)",
                    "triggers.yaml:4:15: index key 'a' must be 1 (ascending) or -1 (descending)",
                    "triggers.yaml:4:21: index key 'b' must be 1 (ascending) or -1 (descending)",
                    "triggers.yaml:5:13: 'unique' must be true or false",
                ])
        #expect(
            errors("indexes:\n  - {database: d, collection: c, keys: {}}\n  - {database: d, collection: c}\n") == [
                "triggers.yaml:2:40: 'keys' must name at least one field",
                "triggers.yaml:3:5: missing required key 'keys' in an index (for example keys: {date: 1})",
            ])
    }

    @Test func theWrittenYAMLReadsBackAsTheSameDefinition() throws {
        var match: BSONDocument = ["operationType": "update", "fullDocument.title": "The \"Hobbit\"\n: 2"]
        match["$or"] = [["a": .int64(5)], ["b": .double(1)], ["c": [1, "two", ["x": .null]]], ["d": .bool(false)]]
        match["when"] = .datetime(BSONDate(millisecondsSinceEpoch: 1_700_000_000_123))
        match["early"] = .datetime(BSONDate(millisecondsSinceEpoch: -86_400_000))
        match["id"] = .objectId(ObjectId(hex: "64b7f0c2a1b2c3d4e5f60718")!)
        match["nan"] = .double(.nan)
        match["true"] = "yes"
        let definition = AppDefinition(
            appId: "app-1",
            triggers: [
                TriggerDefinition(
                    name: "db", function: "utils/audit", disabled: true,
                    kind: .database(
                        DatabaseTrigger(
                            scope: .collection(database: "product", collection: "book"),
                            operations: [.update, .insert],
                            fullDocument: true, fullDocumentBeforeChange: true, match: match,
                            project: ["fullDocument": 1],
                            delivery: .unordered(maxConcurrency: 7), skipCatchupEvents: true,
                            tolerateResumeErrors: true,
                            retry: RetryPolicy(
                                maxAttempts: 9, initialBackoff: .milliseconds(250), maxBackoff: .seconds(7200))))),
                TriggerDefinition(
                    name: "all", function: "f",
                    kind: .database(DatabaseTrigger(scope: .deployment, operations: [.delete]))),
                TriggerDefinition(
                    name: "cron", function: "f",
                    kind: .scheduled(ScheduledTrigger(schedule: try CronSchedule("*/5 9-17 * * MON-FRI")))),
                TriggerDefinition(
                    name: "login", function: "true",
                    kind: .authentication(AuthenticationTrigger(operation: .login, providers: [.google, .apple]))),
            ],
            functions: [
                "f": FunctionSettings(), "utils/audit": FunctionSettings(isPrivate: true, timeout: .seconds(90)),
                "true": FunctionSettings(
                    runAsSystem: true, canEvaluate: ["%%request.remoteIPAddress": ["$in": ["1.2.3.4"]]]),
            ],
            auth: AuthSettings(
                providers: [.anonymous],
                customUserData: .init(database: "product", collection: "users", userIdField: "user id", enabled: false)),
            functionTimeout: .milliseconds(1500),
            allowedRequestOrigins: ["https://books.example", "http://[::1]:8080"],
            indexes: [
                IndexDeclaration(
                    database: "product", collection: "pushNotification", keys: ["processed": 1, "date": -1]),
                IndexDeclaration(database: "a b", collection: "c:d", keys: ["x.y": 1], unique: true, name: "x y"),
            ]
        )
        let text = try definition.yamlText()
        #expect(try AppDefinition.parse(text) == definition)
        #expect(try AppDefinition.parse(try AppDefinition().yamlText()) == AppDefinition())
    }

    @Test func unwritableValuesAreReported() {
        let definition = AppDefinition(
            triggers: [
                TriggerDefinition(
                    name: "a", function: "f",
                    kind: .database(
                        DatabaseTrigger(
                            scope: .database("d"), operations: [.insert],
                            match: ["r": .regex(BSONRegularExpression(pattern: "x"))])))
            ])
        #expect(throws: UnwritableValue(typeName: "regex")) { try definition.yamlText() }
    }
}
