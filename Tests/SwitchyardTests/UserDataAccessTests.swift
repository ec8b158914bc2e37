import BSON
import DocumentStore
import Testing

@testable import Switchyard

/// Every role field of App Services' data access rules, allowed and refused, as a user's reads and writes meet
/// them through a store collection that carries the user's `UserDataAccess`.
@Suite struct UserDataAccessTests {
    static let alice = FunctionUser(id: "alice", data: ["email": "alice@example.com"], customData: ["isAdmin": true])
    static let bob = FunctionUser(id: "bob", data: ["email": "bob@example.com"])

    /// A store holding `product.item`: two of alice's, one of bob's. `rules` is the body of `rules: collections:`'s
    /// one entry for `product.item` (its `roles:` and perhaps `schema:`).
    func withItems(
        _ rules: String, _ body: (_ collection: (FunctionUser) -> DocumentCollection) async throws -> Void
    ) async throws {
        let indented = rules.split(separator: "\n", omittingEmptySubsequences: false).map { "      " + $0 }
            .joined(separator: "\n")
        let definition = try AppDefinition.parse(
            """
            rules:
              collections:
                - database: product
                  collection: item
            \(indented)
            """)
        let store = try await DocumentStore.open(.memory)
        try await store.database("product").collection("item").insertMany([
            ["_id": 1, "owner": "alice", "name": "pen", "price": 2, "locked": false],
            ["_id": 2, "owner": "alice", "name": "ink", "price": 5, "locked": true],
            ["_id": 3, "owner": "bob", "name": "pad", "price": 3, "locked": false],
        ])
        let rules = definition.rules
        try await body { user in
            store.database("product", access: UserDataAccess(rules: rules, user: user)).collection("item")
        }
        await store.close()
    }

    func ids(_ documents: [BSONDocument]) -> [BSON] { documents.compactMap { $0["_id"] } }

    func refusal(_ body: () async throws -> Void) async -> StoreError? {
        do {
            try await body()
            return nil
        } catch let error as StoreError {
            return error
        } catch let error as BulkWriteError {
            return error.writeErrors.first.map { StoreError(code: $0.code, message: $0.errmsg) }
        } catch {
            return StoreError(code: .badValue, message: "\(error)")
        }
    }

    @Test func theFirstRoleThatAppliesWinsAndWithoutOneNothingIsReadOrWritten() async throws {
        try await withItems(
            """
            roles:
              - name: admin
                apply_when: {"%%user.custom_data.isAdmin": true}
                read: true
                write: true
              - name: reader
                apply_when: {"%%user.data.email": {"%in": ["bob@example.com"]}}
                read: true
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            #expect(try await items(Self.alice).updateOne(["_id": 3], ["$set": ["price": 4]]).modifiedCount == 1)
            #expect(ids(try await items(Self.bob).find().toArray()) == [1, 2, 3])
            let refused = await refusal { try await items(Self.bob).updateOne(["_id": 3], ["$set": ["price": 9]]) }
            #expect(refused?.code == .unauthorized)
            #expect(refused?.message == "update not permitted on 'product.item'")
            let stranger = FunctionUser(id: "carol", data: ["email": "carol@example.com"])
            #expect(try await items(stranger).find().toArray().isEmpty)
            #expect(try await items(stranger).countDocuments() == 0)
            #expect(await refusal { try await items(stranger).insertOne(["_id": 4]) }?.code == .unauthorized)
        }
    }

    @Test func documentFiltersRestrictWhatIsReadAndWhatWritesMatch() async throws {
        try await withItems(
            """
            roles:
              - name: owner
                apply_when: {}
                document_filters:
                  read: {owner: "%%user.id"}
                  write: {owner: "%%user.id"}
                read: true
                write: true
                delete: true
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            #expect(ids(try await items(Self.alice).find().toArray()) == [1, 2])
            #expect(try await items(Self.alice).findOne(["_id": 3]) == nil)
            #expect(try await items(Self.bob).findOne(["_id": 3])?["name"] == "pad")
            #expect(try await items(Self.alice).countDocuments() == 2)
            let updated = try await items(Self.alice).updateMany([:], ["$inc": ["price": 1]])
            #expect(updated.matchedCount == 2)
            #expect(try await items(Self.bob).findOne(["_id": 3])?["price"] == .int32(3))
            #expect(try await items(Self.bob).deleteMany([:]).deletedCount == 1)
            #expect(try await items(Self.alice).countDocuments() == 2)
        }
    }

    @Test func anExpandedValueInADocumentFilterIsAValueNeverAnOperator() async throws {
        try await withItems(
            """
            roles:
              - name: team
                apply_when: {}
                document_filters: {read: {owner: "%%user.custom_data.owner"}}
                read: true
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            let sly = FunctionUser(id: "sly", customData: ["owner": ["$exists": true]])
            #expect(try await items(sly).find().toArray().isEmpty)
            #expect(ids(try await items(FunctionUser(id: "x", customData: ["owner": "bob"])).find().toArray()) == [3])
        }
    }

    @Test func readAndWritePermissionsWithExpressionsOfTheDocument() async throws {
        try await withItems(
            """
            roles:
              - name: everyone
                apply_when: {}
                read: {owner: "%%user.id"}
                write: {"%%root.locked": false, owner: "%%user.id"}
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            #expect(ids(try await items(Self.bob).find().toArray()) == [3])
            #expect(try await items(Self.alice).updateOne(["_id": 1], ["$set": ["price": 7]]).modifiedCount == 1)
            // Document 2 is locked after the write as before it: refused, and nothing changes.
            #expect(
                await refusal { try await items(Self.alice).updateOne(["_id": 2], ["$set": ["price": 7]]) }?.code
                    == .unauthorized)
            #expect(try await items(Self.alice).findOne(["_id": 2])?["price"] == .int32(5))
            // A write that would lock the document is judged on the document after it.
            #expect(
                await refusal { try await items(Self.alice).updateOne(["_id": 1], ["$set": ["locked": true]]) }?.code
                    == .unauthorized)
        }
    }

    @Test func writeImpliesRead() async throws {
        try await withItems(
            """
            roles:
              - {name: writer, apply_when: {}, read: false, write: true}
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            #expect(ids(try await items(Self.bob).find().toArray()) == [1, 2, 3])
        }
    }

    @Test func insertAndDeletePermissions() async throws {
        try await withItems(
            """
            roles:
              - name: alice
                apply_when: {"%%user.id": alice}
                write: true
                insert: true
                delete: false
              - name: bob
                apply_when: {"%%user.id": bob}
                write: true
                insert: false
                delete: {owner: "%%user.id"}
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            #expect(try await items(Self.alice).insertOne(["_id": 10, "owner": "alice"]).insertedId == 10)
            #expect(
                await refusal { try await items(Self.bob).insertOne(["_id": 11]) }?.message
                    == "insert not permitted on 'product.item'")
            #expect(
                await refusal { try await items(Self.alice).deleteOne(["_id": 1]) }?.message
                    == "delete not permitted on 'product.item'")
            #expect(await refusal { try await items(Self.bob).deleteOne(["_id": 1]) }?.code == .unauthorized)
            #expect(try await items(Self.bob).deleteOne(["_id": 3]).deletedCount == 1)
            // A bulk write is held to the same rules.
            let refused = await refusal {
                try await items(Self.bob).bulkWrite([.deleteOne(filter: ["_id": 1])])
            }
            #expect(refused?.code == .unauthorized)
            #expect(try await items(Self.alice).findOne(["_id": 1]) != nil)
        }
    }

    @Test func fieldsAndAdditionalFieldsDecideWhatIsReadAndWritten() async throws {
        try await withItems(
            """
            roles:
              - name: shopper
                apply_when: {}
                fields:
                  price: {read: true, write: false}
                  owner: {read: {owner: "%%user.id"}}
                  name: {write: true}
                additional_fields: {read: false, write: false}
                insert: true
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            let seen = try await items(Self.bob).find(["_id": ["$in": [1, 3]]]).toArray()
            #expect(
                seen == [
                    ["_id": 1, "name": "pen", "price": 2], ["_id": 3, "owner": "bob", "name": "pad", "price": 3],
                ])
            #expect(
                try await items(Self.bob).findOne(["_id": 1], options: FindOptions(projection: ["locked": 1])) == [
                    "_id": 1
                ])
            #expect(try await items(Self.bob).updateOne(["_id": 1], ["$set": ["name": "quill"]]).modifiedCount == 1)
            #expect(
                await refusal { try await items(Self.bob).updateOne(["_id": 1], ["$set": ["price": 1]]) }?.code
                    == .unauthorized)
            #expect(
                await refusal { try await items(Self.bob).updateOne(["_id": 1], ["$unset": ["locked": ""]]) }?.code
                    == .unauthorized)
            // An insert needs every field it writes to be writable.
            #expect(try await items(Self.bob).insertOne(["_id": 20, "name": "new"]).insertedId == 20)
            #expect(
                await refusal { try await items(Self.bob).insertOne(["_id": 21, "price": 1]) }?.code == .unauthorized)
        }
    }

    @Test func additionalFieldsOpenEverythingTheFieldsDoNotName() async throws {
        try await withItems(
            """
            roles:
              - name: shopper
                apply_when: {}
                fields:
                  price: {read: false}
                additional_fields: {read: true, write: true}
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            #expect(
                try await items(Self.bob).findOne(["_id": 3]) == [
                    "_id": 3, "owner": "bob", "name": "pad", "locked": false,
                ])
            #expect(try await items(Self.bob).updateOne(["_id": 3], ["$set": ["name": "note"]]).modifiedCount == 1)
            #expect(
                await refusal { try await items(Self.bob).updateOne(["_id": 3], ["$set": ["price": 0]]) }?.code
                    == .unauthorized)
        }
    }

    @Test func aRoleChosenPerDocumentByItsFields() async throws {
        try await withItems(
            """
            roles:
              - name: owner
                apply_when: {owner: "%%user.id"}
                read: true
                write: true
              - name: public
                apply_when: {locked: false}
                fields:
                  name: {read: true}
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            let seen = try await items(Self.bob).find([:], options: FindOptions(sort: ["_id": 1], limit: 2)).toArray()
            #expect(
                seen == [
                    ["_id": 1, "name": "pen"], ["_id": 3, "owner": "bob", "name": "pad", "price": 3, "locked": false],
                ])
            #expect(try await items(Self.bob).countDocuments() == 2)
            #expect(try await items(Self.bob).updateOne(["_id": 3], ["$set": ["price": 1]]).modifiedCount == 1)
            #expect(
                await refusal { try await items(Self.bob).updateOne(["_id": 1], ["$set": ["name": "x"]]) }?.code
                    == .unauthorized)
        }
    }

    @Test func filtersThatApplyRestrictEveryReadAndWrite() async throws {
        try await withItems(
            """
            roles:
              - {name: everyone, apply_when: {}, read: true, write: true}
            filters:
              - name: unlockedForGuests
                apply_when: {"%%user.data.email": {"%exists": false}}
                query: {locked: false}
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            #expect(ids(try await items(FunctionUser(id: "guest")).find().toArray()) == [1, 3])
            #expect(
                try await items(FunctionUser(id: "guest")).updateMany([:], ["$set": ["seen": true]]).matchedCount == 2)
            #expect(ids(try await items(Self.bob).find().toArray()) == [1, 2, 3])
        }
    }

    @Test func embeddedFieldsAndTheDocumentBeforeAWrite() async throws {
        try await withItems(
            """
            roles:
              - name: shopper
                apply_when: {}
                fields:
                  name: {read: true}
                  stock:
                    read: true
                    fields:
                      count: {write: {"%%prevRoot.locked": false}}
                  locked: {read: true, write: true}
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            let system = items(Self.bob).database.store.database("product").collection("item")
            _ = try await system.updateMany([:], ["$set": ["stock": ["count": 1, "shelf": "A"]]])
            #expect(try await items(Self.bob).findOne(["_id": 3])?["stock"] == ["count": 1, "shelf": "A"])
            #expect(try await items(Self.bob).updateOne(["_id": 3], ["$set": ["stock.count": 2]]).modifiedCount == 1)
            #expect(
                await refusal { try await items(Self.bob).updateOne(["_id": 3], ["$set": ["stock.shelf": "B"]]) }?.code
                    == .unauthorized)
            // Unlocking and counting in one write: judged on the document before it, which was locked.
            #expect(
                await refusal {
                    try await items(Self.bob).updateOne(["_id": 2], ["$set": ["locked": false, "stock.count": 9]])
                }?.code == .unauthorized)
            #expect(try await items(Self.bob).updateOne(["_id": 2], ["$set": ["locked": false]]).modifiedCount == 1)
        }
    }

    @Test func aFailedDocumentOfAnUpdateManyLeavesEveryDocumentAsItWas() async throws {
        try await withItems(
            """
            roles:
              - name: everyone
                apply_when: {}
                read: true
                write: {locked: false}
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            #expect(
                await refusal { try await items(Self.bob).updateMany([:], ["$inc": ["price": 10]]) }?.code
                    == .unauthorized)
            #expect(try await items(Self.bob).find().toArray().compactMap { $0["price"] } == [2, 5, 3])
        }
    }

    @Test func aCollectionWithoutRulesIsRefused() async throws {
        try await withItems("roles: []") { (items: (FunctionUser) -> DocumentCollection) async throws in
            let other = items(Self.alice).database.collection("other")
            let refused = await refusal { _ = try await other.find().toArray() }
            #expect(refused?.message == "no rule exists for namespace 'product.other'")
            #expect(await refusal { try await other.insertOne([:]) }?.code == .unauthorized)
        }
    }

    @Test func aggregationReadsOnlyWhatTheUserMaySeeAndReachesNoOtherCollection() async throws {
        try await withItems(
            """
            roles:
              - name: owner
                apply_when: {}
                document_filters: {read: {owner: "%%user.id"}}
                read: true
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            let total = try await items(Self.alice).aggregate([["$group": ["_id": .null, "sum": ["$sum": "$price"]]]])
            #expect(total.first?["sum"]?.int64Value == 7)
            let lookup = await refusal {
                _ = try await items(Self.alice).aggregate([
                    ["$lookup": ["from": "secrets", "localField": "_id", "foreignField": "_id", "as": "s"]]
                ])
            }
            #expect(lookup?.code == .unauthorized)
            #expect(await refusal { _ = try await items(Self.alice).drop() }?.code == .unauthorized)
        }
    }

    @Test func searchIsPermittedOnlyWhereTheRoleSaysSo() throws {
        let definition = try AppDefinition.parse(
            """
            rules:
              collections:
                - {database: product, collection: a, roles: [{name: r, apply_when: {}, search: true}]}
                - {database: product, collection: b, roles: [{name: r, apply_when: {}, read: true}]}
            """)
        let access = UserDataAccess(rules: definition.rules, user: Self.bob)
        #expect(access.permitsSearch(Namespace(database: "product", collection: "a")))
        #expect(!access.permitsSearch(Namespace(database: "product", collection: "b")))
    }

    @Test func schemasRefuseDocumentsThatDoNotFit() async throws {
        try await withItems(
            """
            roles:
              - {name: everyone, apply_when: {}, read: true, write: true, insert: true}
            schema:
              bsonType: object
              required: [name]
              properties:
                name: {bsonType: string, minLength: 1}
                price: {bsonType: [int, double], minimum: 0}
                tags: {bsonType: array, items: {bsonType: string}, uniqueItems: true}
                colour: {enum: [red, blue]}
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            #expect(
                try await items(Self.bob).insertOne(["_id": 30, "name": "cup", "price": 1.5, "tags": ["a"]]).insertedId
                    == 30)
            let missing = await refusal { try await items(Self.bob).insertOne(["_id": 31, "price": 1]) }
            #expect(missing?.code == .documentValidationFailure)
            #expect(missing?.message == "failed schema validation: the document is missing the required field 'name'")
            let negative = await refusal { try await items(Self.bob).updateOne(["_id": 3], ["$set": ["price": -1]]) }
            #expect(negative?.message == "failed schema validation: 'price' must be at least 0.0")
            let tag = await refusal { try await items(Self.bob).updateOne(["_id": 3], ["$push": ["tags": 5]]) }
            #expect(tag?.message == "failed schema validation: 'tags.0' must be of type string, found int")
            let colour = await refusal {
                try await items(Self.bob).updateOne(["_id": 3], ["$set": ["colour": "green"]])
            }
            #expect(colour?.message == "failed schema validation: 'colour' must be one of the schema's enum values")
            #expect(try await items(Self.bob).findOne(["_id": 3])?["price"] == .int32(3))
        }
    }

    @Test func theSystemBypassesRulesAndSchemas() async throws {
        try await withItems(
            """
            roles: []
            schema: {bsonType: object, required: [name]}
            """
        ) { (items: (FunctionUser) -> DocumentCollection) async throws in
            let system = items(Self.alice).database.store.database("product").collection("item")
            #expect(try await system.insertOne(["_id": 40]).insertedId == 40)
            #expect(try await items(Self.alice).find().toArray().isEmpty)
        }
    }

    @Test func changeEventsAreShownAsReadsWouldShowTheirDocuments() throws {
        let definition = try AppDefinition.parse(
            """
            rules:
              collections:
                - database: product
                  collection: item
                  roles:
                    - name: owner
                      apply_when: {}
                      document_filters: {read: {owner: "%%user.id"}}
                      fields: {owner: {read: true}, name: {read: true}}
            """)
        let access = UserDataAccess(rules: definition.rules, user: Self.bob)
        let event: BSONDocument = [
            "operationType": "update", "ns": ["db": "product", "coll": "item"],
            "fullDocument": ["_id": 3, "owner": "bob", "name": "pad", "price": 3],
            "updateDescription": ["updatedFields": ["price": 3, "name": "pad"], "removedFields": []],
        ]
        let shown = try #require(access.permittedChange(event))
        #expect(shown["fullDocument"] == ["_id": 3, "owner": "bob", "name": "pad"])
        #expect(shown["updateDescription"]?.documentValue?["updatedFields"] == ["name": "pad"])
        var others = event
        others["fullDocument"] = ["_id": 1, "owner": "alice", "name": "pen"]
        #expect(access.permittedChange(others) == nil)
        var deleted = event
        deleted["fullDocument"] = nil
        #expect(access.permittedChange(deleted) == nil)
    }
}
