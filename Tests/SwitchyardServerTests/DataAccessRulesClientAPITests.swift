import BSON
import DocumentStore
import Switchyard
import TestSupport
import Testing

@testable import SwitchyardServer

/// Data access rules and schemas as the Realm SDK's remote MongoDB calls meet them over real HTTP: reads return
/// only what the user's role permits, refused writes answer as App Services does, and functions running as the
/// user are held to the same rules while system functions and triggers are not.
@Suite(.timeLimit(.minutes(1))) struct DataAccessRulesClientAPITests {
    static let rules = """
        auth:
          customUserData: {database: app, collection: userData, userIdField: userId}
        rules:
          collections:
            - database: shop
              collection: notes
              roles:
                - name: owner
                  apply_when: {}
                  document_filters:
                    read: {owner: "%%user.id"}
                    write: {owner: "%%user.id"}
                  read: true
                  write: true
                  insert: true
                  delete: true
              schema:
                bsonType: object
                required: [owner, text]
                properties:
                  text: {bsonType: string, maxLength: 20}
            - database: shop
              collection: catalogue
              roles:
                - name: editor
                  apply_when: {"%%user.custom_data.role": editor}
                  read: true
                  write: true
                  insert: true
                - name: reader
                  apply_when: {}
                  read: true
            - database: app
              collection: userData
              roles:
                - name: self
                  apply_when: {}
                  document_filters: {read: {userId: "%%user.id"}, write: {userId: "%%user.id"}}
                  read: true
                  write: true
                  insert: true
        """

    static func withApp<Result>(_ body: (ServedApp) async throws -> Result) async throws -> Result {
        var registry = FunctionRegistry()
        registry.register("addNote") { (arguments: [BSON], context: FunctionContext) in
            let notes = try context.services.mongodb().db("shop").collection("notes")
            return try await notes.insertOne(arguments.first?.documentValue ?? [:]).insertedId
        }
        registry.register("countNotes") { (_: [BSON], context: FunctionContext) in
            .int64(Int64(try await context.services.mongodb().db("shop").collection("notes").countDocuments()))
        }
        registry.register("countNotesAsSystem") { (_: [BSON], context: FunctionContext) in
            .int64(Int64(try await context.services.mongodb().db("shop").collection("notes").countDocuments()))
        }
        registry.register("stampNote") { (event: ChangeEvent, context: FunctionContext) in
            // A trigger runs as the system: the schema's length limit does not hold it back.
            try await context.services.mongodb().db("shop").collection("stamps").insertOne([
                "note": event.documentKey?["_id"] ?? .null, "text": "stamped by the system, far beyond twenty",
            ])
        }
        var definition = try AppDefinition.parse(
            Self.rules + """

                triggers:
                  - {name: stamp, type: database, function: stampNote, database: shop, collection: notes, operations: [INSERT]}
                functions:
                  countNotesAsSystem: {runAsSystem: true}
                """)
        definition.appId = nil
        return try await ServedApp.with(registry, definition: definition, body)
    }

    func note(_ owner: String, _ text: String) -> String {
        #"{"database": "shop", "collection": "notes", "document": {"owner": "\#(owner)", "text": "\#(text)"}}"#
    }

    @Test func aUserReadsAndWritesOnlyTheirOwnDocuments() async throws {
        try await Self.withApp { served in
            let alice = try await served.loginAnonymously()
            let bob = try await served.loginAnonymously()
            let inserted = try await served.atlas("insertOne", note(alice.userId, "milk"), token: alice.accessToken)
            let id = try #require(inserted.documentValue?["insertedId"])
            let find = #"{"database": "shop", "collection": "notes", "query": {"_id": \#(id.extendedJSON())}}"#
            #expect(try await served.atlas("findOne", find, token: alice.accessToken).documentValue?["text"] == "milk")
            #expect(try await served.atlas("findOne", find, token: bob.accessToken) == .null)
            #expect(
                try await served.atlas(
                    "find", #"{"database": "shop", "collection": "notes", "query": {}}"#, token: bob.accessToken) == [])
            // Bob cannot insert a note as Alice, nor change or delete hers.
            let forged = try await served.call(
                "insertOne", "[\(note(alice.userId, "eggs"))]", service: "mongodb-atlas", token: bob.accessToken)
            #expect(forged.status == 403)
            #expect(forged.errorCode == "MongoDBError")
            #expect(forged.json?.documentValue?["error"] == "insert not permitted on 'shop.notes'")
            let update =
                #"{"database": "shop", "collection": "notes", "query": {}, "update": {"$set": {"text": "gone"}}}"#
            #expect(
                try await served.atlas("updateMany", update, token: bob.accessToken).documentValue?["matchedCount"]
                    == .int32(0))
            let delete = #"{"database": "shop", "collection": "notes", "query": {}}"#
            #expect(
                try await served.atlas("deleteMany", delete, token: bob.accessToken).documentValue?["deletedCount"]
                    == .int32(0))
            #expect(try await served.atlas("count", delete, token: alice.accessToken) == .int64(1))
            // Changing the owner away from oneself is a write the document filter refuses afterwards.
            let giveAway =
                #"{"database": "shop", "collection": "notes", "query": {}, "update": {"$set": {"owner": "\#(bob.userId)"}}}"#
            let given = try await served.call(
                "updateOne", "[\(giveAway)]", service: "mongodb-atlas", token: alice.accessToken)
            #expect(given.status == 403)
        }
    }

    @Test func aCollectionWithoutRulesIsRefusedAsAppServicesRefusesIt() async throws {
        try await Self.withApp { served in
            let token = try await served.loginAnonymously().accessToken
            let response = try await served.call(
                "find", #"[{"database": "shop", "collection": "secrets", "query": {}}]"#, service: "mongodb-atlas",
                token: token)
            #expect(response.status == 403)
            #expect(response.errorCode == "NoMatchingRuleFound")
            #expect(response.json?.documentValue?["error"] == "no rule exists for namespace 'shop.secrets'")
        }
    }

    @Test func schemaValidationFailsInsertsAndUpdatesThroughTheClientAPI() async throws {
        try await Self.withApp { served in
            let alice = try await served.loginAnonymously()
            let long = try await served.call(
                "insertOne", "[\(note(alice.userId, "far too long for the schema's limit"))]", service: "mongodb-atlas",
                token: alice.accessToken)
            #expect(long.status == 400)
            #expect(long.errorCode == "SchemaValidationFailedWrite")
            #expect(
                long.json?.documentValue?["error"]
                    == "failed schema validation: 'text' must be at most 20 characters long")
            _ = try await served.atlas("insertOne", note(alice.userId, "ok"), token: alice.accessToken)
            let unset = try await served.call(
                "updateOne",
                #"[{"database": "shop", "collection": "notes", "query": {}, "update": {"$unset": {"text": ""}}}]"#,
                service: "mongodb-atlas", token: alice.accessToken)
            #expect(unset.errorCode == "SchemaValidationFailedWrite")
        }
    }

    @Test func functionsRunningAsTheUserAreHeldToTheRulesAndSchemasAndSystemCodeIsNot() async throws {
        try await Self.withApp { served in
            let alice = try await served.loginAnonymously()
            let bob = try await served.loginAnonymously()
            let added = try await served.call(
                "addNote", "[\(#"{"owner": "\#(alice.userId)", "text": "hi"}"#)]", token: alice.accessToken)
            #expect(added.status == 200)
            let forged = try await served.call(
                "addNote", "[\(#"{"owner": "\#(alice.userId)", "text": "hi"}"#)]", token: bob.accessToken)
            #expect(forged.status == 400)
            #expect(forged.text.contains("insert not permitted"))
            let invalid = try await served.call(
                "addNote", "[\(#"{"owner": "\#(alice.userId)"}"#)]", token: alice.accessToken)
            #expect(invalid.text.contains("failed schema validation"))
            #expect(try await served.call("countNotes", token: bob.accessToken).text == #"{"$numberLong":"0"}"#)
            #expect(try await served.call("countNotesAsSystem", token: bob.accessToken).text == #"{"$numberLong":"1"}"#)
            // The insert trigger ran as the system, past the rules (stamps has none) and the schema.
            try await served.app.awaitIdle()
            #expect(try await served.app.store.database("shop").collection("stamps").countDocuments() == 1)
        }
    }

    @Test func customUserDataIsReadAsTheStoreHoldsItNow() async throws {
        try await Self.withApp { served in
            let carol = try await served.loginAnonymously()
            let item = #"{"database": "shop", "collection": "catalogue", "document": {"_id": "lamp"}}"#
            let refused = try await served.call(
                "insertOne", "[\(item)]", service: "mongodb-atlas", token: carol.accessToken)
            #expect(refused.status == 403)
            // Carol becomes an editor through her own custom user data; the same token may now insert.
            _ = try await served.atlas(
                "insertOne",
                #"{"database": "app", "collection": "userData", "document": {"userId": "\#(carol.userId)", "role": "editor"}}"#,
                token: carol.accessToken)
            #expect(try await served.atlas("insertOne", item, token: carol.accessToken) == ["insertedId": "lamp"])
            _ = try await served.atlas(
                "updateOne",
                #"{"database": "app", "collection": "userData", "query": {}, "update": {"$set": {"role": "reader"}}}"#,
                token: carol.accessToken)
            let again = try await served.call(
                "insertOne", #"[{"database": "shop", "collection": "catalogue", "document": {"_id": "desk"}}]"#,
                service: "mongodb-atlas", token: carol.accessToken)
            #expect(again.status == 403)
            #expect(
                try await served.atlas(
                    "find", #"{"database": "shop", "collection": "catalogue", "query": {}}"#, token: carol.accessToken)
                    == [["_id": "lamp"]])
        }
    }

    @Test func aggregationIsFilteredAndRefusesStagesThatReachOtherCollections() async throws {
        try await Self.withApp { served in
            let alice = try await served.loginAnonymously()
            let bob = try await served.loginAnonymously()
            _ = try await served.atlas("insertOne", note(alice.userId, "a"), token: alice.accessToken)
            _ = try await served.atlas("insertOne", note(bob.userId, "b"), token: bob.accessToken)
            let grouped = try await served.atlas(
                "aggregate",
                #"{"database": "shop", "collection": "notes", "pipeline": [{"$group": {"_id": null, "n": {"$sum": 1}}}]}"#,
                token: bob.accessToken)
            #expect(grouped.arrayValue?.first?.documentValue?["n"]?.int64Value == 1)
            let lookup = try await served.call(
                "aggregate",
                #"[{"database": "shop", "collection": "notes", "pipeline": [{"$lookup": {"from": "catalogue", "localField": "a", "foreignField": "b", "as": "c"}}]}]"#,
                service: "mongodb-atlas", token: bob.accessToken)
            #expect(lookup.status == 403)
            let search = try await served.call(
                "aggregate", #"[{"database": "shop", "collection": "notes", "pipeline": [{"$search": {}}]}]"#,
                service: "mongodb-atlas", token: bob.accessToken)
            #expect(search.status == 403)
            #expect(search.json?.documentValue?["error"] == "search not permitted")
        }
    }
}
