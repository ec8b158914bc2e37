import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

/// `functions/call` over real HTTP: the app's functions and the `mongodb-atlas` service, canonical Extended JSON
/// in and out, App Services' error codes.
@Suite(.timeLimit(.minutes(1))) struct ClientAPIFunctionsTests {
    static func app() -> (FunctionRegistry, AppDefinition) {
        var registry = FunctionRegistry()
        registry.register("sum") { (arguments: [BSON], _: FunctionContext) in
            .int32(arguments.compactMap { $0.int64Value }.reduce(0) { $0 + Int32(clamping: $1) })
        }
        registry.register("echo") { (arguments: [BSON], context: FunctionContext) in
            [
                "arguments": .array(arguments), "user": .string(context.user.id),
                "system": .bool(context.runningAsSystem),
            ]
        }
        registry.register("echoAsSystem") { (_: [BSON], context: FunctionContext) in
            ["user": .string(context.user.id), "system": .bool(context.runningAsSystem)]
        }
        registry.register("secret") { (_: [BSON], _: FunctionContext) in "classified" }
        registry.register("fail") { (_: [BSON], _: FunctionContext) -> BSON in
            throw TestFailure("the book shelf is empty")
        }
        registry.register("onlyForEditors") { (_: [BSON], _: FunctionContext) in true }
        registry.register("onBook") { (_: ChangeEvent, _: FunctionContext) in }
        let definition = AppDefinition(
            functions: [
                "echoAsSystem": FunctionSettings(runAsSystem: true), "secret": FunctionSettings(isPrivate: true),
                "onlyForEditors": FunctionSettings(canEvaluate: ["%%user.custom_data.role": "editor"]),
            ],
            auth: AuthSettings(customUserData: .init(database: "app", collection: "userData", userIdField: "userId")))
        return (registry, definition)
    }

    static func withApp<Result>(_ body: (ServedApp) async throws -> Result) async throws -> Result {
        let (registry, definition) = app()
        return try await ServedApp.with(registry, definition: definition, body)
    }

    @Test func callsAFunctionWithCanonicalExtendedJSONInAndOut() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            let sum = try await served.call(
                "sum", #"[{"$numberInt": "2"}, {"$numberLong": "40"}]"#, token: login.accessToken)
            #expect(sum.status == 200)
            #expect(sum.headers["Content-Type"] == "application/json")
            #expect(sum.text == #"{"$numberInt":"42"}"#)

            let id = ObjectId()
            let echo = try await served.call(
                "echo", #"[{"$oid": "\#(id.hex)"}, {"$date": {"$numberLong": "0"}}]"#, token: login.accessToken)
            let body = try #require(try ExtendedJSON.parseValue(echo.text).documentValue)
            #expect(body["arguments"] == .array([.objectId(id), .datetime(BSONDate(millisecondsSinceEpoch: 0))]))
            #expect(echo.text.contains(#"{"$oid":"\#(id.hex)"}"#))
        }
    }

    @Test func functionsRunAsTheCallerUnlessRunAsSystem() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            let echo = try await served.call("echo", token: login.accessToken)
            #expect(try ExtendedJSON.parseValue(echo.text).documentValue?["user"]?.stringValue == login.userId)
            #expect(try ExtendedJSON.parseValue(echo.text).documentValue?["system"] == false)
            let system = try await served.call("echoAsSystem", token: login.accessToken)
            #expect(try ExtendedJSON.parseValue(system.text) == ["user": "system", "system": true])
        }
    }

    @Test func functionErrorsAnswerWithAppServicesCodes() async throws {
        try await Self.withApp { served in
            let token = try await served.loginAnonymously().accessToken
            let missing = try await served.call("nope", token: token)
            #expect(missing.status == 404)
            #expect(missing.errorCode == "FunctionNotFound")
            let trigger = try await served.call("onBook", token: token)
            #expect(trigger.errorCode == "FunctionNotFound")
            let failing = try await served.call("fail", token: token)
            #expect(failing.status == 400)
            #expect(failing.errorCode == "FunctionExecutionError")
            #expect(failing.errorMessage?.contains("the book shelf is empty") == true)
            let badArguments = try await served.post(
                "\(served.appBase)/functions/call", #"{"name": "sum", "arguments": 3}"#, token: token)
            #expect(badArguments.status == 400)
            #expect(badArguments.errorCode == "InvalidParameter")
            let noName = try await served.post("\(served.appBase)/functions/call", #"{"arguments": []}"#, token: token)
            #expect(noName.status == 400)
        }
    }

    @Test func privateFunctionsAreForbiddenToClients() async throws {
        try await Self.withApp { served in
            let response = try await served.call("secret", token: try await served.loginAnonymously().accessToken)
            #expect(response.status == 403)
            #expect(response.errorCode == "PrivateFunction")
            #expect(!response.text.contains("classified"))
        }
    }

    @Test func canEvaluateIsCheckedAgainstTheCallersCustomData() async throws {
        try await Self.withApp { served in
            let editor = try await served.loginAnonymously()
            let reader = try await served.loginAnonymously()
            try await served.app.store.database("app").collection("userData").insertMany([
                ["userId": .string(editor.userId), "role": "editor"],
                ["userId": .string(reader.userId), "role": "reader"],
            ])
            #expect(try await served.call("onlyForEditors", token: editor.accessToken).text == "true")
            let refused = try await served.call("onlyForEditors", token: reader.accessToken)
            #expect(refused.status == 403)
            #expect(refused.errorCode == "PermissionDenied")
        }
    }

    // MARK: mongodb-atlas

    @Test func mongoServiceInsertsFindsAndCountsInTheShapesTheSDKParses() async throws {
        try await Self.withApp { served in
            let token = try await served.loginAnonymously().accessToken
            func atlas(_ action: String, _ argument: String) async throws -> BSON {
                try await served.atlas(action, argument, token: token)
            }
            let ns = #""database": "shop", "collection": "items""#
            let one = try await atlas("insertOne", #"{\#(ns), "document": {"_id": 1, "name": "pen", "price": 2}}"#)
            #expect(one == ["insertedId": .int32(1)])
            let many = try await atlas(
                "insertMany",
                #"{\#(ns), "documents": [{"_id": 2, "name": "ink", "price": 5}, {"_id": 3, "name": "pad", "price": 3}]}"#
            )
            #expect(many == ["insertedIds": [.int32(2), .int32(3)]])

            let found = try await atlas(
                "find",
                #"{\#(ns), "query": {"price": {"$gte": 3}}, "sort": {"price": -1}, "project": {"_id": 0, "name": 1}, "limit": 5}"#
            )
            #expect(found == [["name": "ink"], ["name": "pad"]])
            #expect(
                try await atlas("findOne", #"{\#(ns), "query": {"name": "pen"}}"#).documentValue?["price"] == .int32(2))
            #expect(try await atlas("findOne", #"{\#(ns), "query": {"name": "none"}}"#) == .null)
            let count = try await served.call(
                "count", #"[{\#(ns), "query": {}}]"#, service: "mongodb-atlas", token: token)
            #expect(count.text == #"{"$numberLong":"3"}"#)
            let aggregated = try await atlas(
                "aggregate", #"{\#(ns), "pipeline": [{"$group": {"_id": null, "total": {"$sum": "$price"}}}]}"#)
            #expect(aggregated.arrayValue?.first?.documentValue?["total"]?.int64Value == 10)
        }
    }

    @Test func mongoServiceUpdatesDeletesAndFindOneAndModifies() async throws {
        try await Self.withApp { served in
            let token = try await served.loginAnonymously().accessToken
            func atlas(_ action: String, _ argument: String) async throws -> BSON {
                try await served.atlas(action, argument, token: token)
            }
            let ns = #""database": "shop", "collection": "items""#
            _ = try await atlas("insertMany", #"{\#(ns), "documents": [{"_id": 1, "n": 1}, {"_id": 2, "n": 2}]}"#)
            let updated = try await atlas("updateOne", #"{\#(ns), "query": {"_id": 1}, "update": {"$inc": {"n": 10}}}"#)
            #expect(updated == ["matchedCount": .int32(1), "modifiedCount": .int32(1)])
            let upserted = try await atlas(
                "updateOne", #"{\#(ns), "query": {"name": "new"}, "update": {"$set": {"n": 0}}, "upsert": true}"#)
            #expect(upserted.documentValue?["matchedCount"] == .int32(0))
            #expect(upserted.documentValue?["upsertedId"]?.objectIdValue != nil)
            let many = try await atlas("updateMany", #"{\#(ns), "query": {}, "update": {"$set": {"seen": true}}}"#)
            #expect(many == ["matchedCount": .int32(3), "modifiedCount": .int32(3)])

            let after = try await atlas(
                "findOneAndUpdate",
                #"{\#(ns), "filter": {"_id": 2}, "update": {"$set": {"n": 20}}, "returnNewDocument": true, "projection": {"n": 1}}"#
            )
            #expect(after == ["_id": .int32(2), "n": .int32(20)])
            let before = try await atlas(
                "findOneAndReplace", #"{\#(ns), "filter": {"_id": 2}, "update": {"replaced": true}}"#)
            #expect(before.documentValue?["n"] == .int32(20))
            let removed = try await atlas("findOneAndDelete", #"{\#(ns), "filter": {"_id": 2}}"#)
            #expect(removed.documentValue?["replaced"] == true)
            #expect(try await atlas("deleteOne", #"{\#(ns), "query": {"_id": 1}}"#) == ["deletedCount": .int32(1)])
            #expect(try await atlas("deleteMany", #"{\#(ns), "query": {}}"#) == ["deletedCount": .int32(1)])
        }
    }

    @Test func mongoServiceRefusesReservedDatabasesUnknownActionsAndBadArguments() async throws {
        try await Self.withApp { served in
            let token = try await served.loginAnonymously().accessToken
            for database in ["local", "admin", "config"] {
                let response = try await served.call(
                    "find", #"[{"database": "\#(database)", "collection": "switchyard_credentials", "query": {}}]"#,
                    service: "mongodb-atlas", token: token)
                #expect(response.status == 403)
                #expect(response.errorCode == "PermissionDenied")
            }
            let unknown = try await served.call(
                "drop", #"[{"database": "a", "collection": "b"}]"#, service: "mongodb-atlas", token: token)
            #expect(unknown.errorCode == "FunctionNotFound")
            let noCollection = try await served.call(
                "find", #"[{"database": "a"}]"#, service: "mongodb-atlas", token: token)
            #expect(noCollection.errorCode == "InvalidParameter")
            let badUpdate = try await served.call(
                "updateOne", #"[{"database": "a", "collection": "b", "query": {}, "update": {"$bogus": {"x": 1}}}]"#,
                service: "mongodb-atlas", token: token)
            #expect(badUpdate.status == 400)
            #expect(badUpdate.errorCode == "MongoDBError")
            let otherService = try await served.call("find", "[{}]", service: "http", token: token)
            #expect(otherService.errorCode == "ServiceNotFound")
        }
    }
}
