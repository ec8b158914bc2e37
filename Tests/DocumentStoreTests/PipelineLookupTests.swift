import BSON
import DocumentStore
import Testing

@Suite struct PipelineLookupTests {
    let inventory: [BSONDocument] = [
        ["_id": 1, "sku": "almonds", "stock": 120], ["_id": 2, "sku": "bread", "stock": 80],
        ["_id": 3, "sku": "cashews", "stock": 60], ["_id": 4, "sku": "pecans", "stock": 70],
        ["_id": 5, "sku": .null], ["_id": 6],
    ]

    var source: MemorySource { MemorySource(collections: ["inventory": inventory]) }

    private func lookup(_ input: [BSONDocument]) throws -> [BSONDocument] {
        let stage: BSONDocument = [
            "$lookup": ["from": "inventory", "localField": "item", "foreignField": "sku", "as": "docs"]
        ]
        return try aggregate([stage], input, source: source)
    }

    @Test func equalityMatchesScalarsAndMissingMatchesNullOrMissing() throws {
        let output = try lookup([["_id": 1, "item": "almonds"], ["_id": 3]])
        #expect(
            output == [
                ["_id": 1, "item": "almonds", "docs": [.document(inventory[0])]],
                ["_id": 3, "docs": [.document(inventory[4]), .document(inventory[5])]],
            ])
    }

    @Test func arrayLocalFieldMatchesAnyElementInForeignOrder() throws {
        let output = try lookup([["_id": 1, "item": ["pecans", "almonds", "nothing", "almonds"]]])
        #expect(output[0]["docs"] == [.document(inventory[0]), .document(inventory[3])])
    }

    @Test func arrayForeignFieldAndNumbersAcrossTypesMatch() throws {
        let users: [BSONDocument] = [["_id": "u1", "favorites": [1, 2]], ["_id": "u2", "favorites": [3]]]
        let output = try aggregate(
            [["$lookup": ["from": "users", "localField": "_id", "foreignField": "favorites", "as": "fans"]]],
            [["_id": 2.0], ["_id": .int64(3)], ["_id": 9]], source: MemorySource(collections: ["users": users]))
        #expect(
            output == [
                ["_id": 2.0, "fans": [.document(users[0])]], ["_id": .int64(3), "fans": [.document(users[1])]],
                ["_id": 9, "fans": []],
            ])
    }

    @Test func unknownCollectionJoinsNothingAndAsMayBeDotted() throws {
        let output = try aggregate(
            [["$lookup": ["from": "none", "localField": "a", "foreignField": "b", "as": "x.y"]]], [["_id": 1, "x": 5]])
        #expect(output == [["_id": 1, "x": ["y": []]]])
    }

    @Test func pipelineFormBindsLetVariables() throws {
        let orders: [BSONDocument] = [
            ["_id": 1, "item": "almonds", "wanted": 100], ["_id": 2, "item": "bread", "wanted": 90],
        ]
        let stage: BSONDocument = [
            "$lookup": [
                "from": "inventory", "let": ["orderItem": "$item", "qty": "$wanted"],
                "pipeline": [
                    [
                        "$match": [
                            "$expr": ["$and": [["$eq": ["$sku", "$$orderItem"]], ["$gte": ["$stock", "$$qty"]]]]
                        ]
                    ],
                    ["$project": ["_id": 0, "stock": 1]],
                ],
                "as": "available",
            ]
        ]
        let output = try aggregate([stage], orders, source: source)
        #expect(
            output == [
                ["_id": 1, "item": "almonds", "wanted": 100, "available": [["stock": 120]]],
                ["_id": 2, "item": "bread", "wanted": 90, "available": []],
            ])
    }

    @Test func combinedFormFiltersMatchesThroughThePipeline() throws {
        let stage: BSONDocument = [
            "$lookup": [
                "from": "inventory", "localField": "items", "foreignField": "sku", "let": ["min": "$min"],
                "pipeline": [
                    ["$match": ["$expr": ["$gte": ["$stock", "$$min"]]]], ["$project": ["sku": 1, "_id": 0]],
                ],
                "as": "stocked",
            ]
        ]
        let output = try aggregate(
            [stage], [["_id": 1, "items": ["bread", "cashews", "pecans"], "min": 65]], source: source)
        #expect(output[0]["stocked"] == [["sku": "bread"], ["sku": "pecans"]])
    }

    @Test func specificationErrors() {
        #expect(
            aggregationFailure([["$lookup": ["from": "x", "localField": "a", "foreignField": "b"]]])?.code
                == .failedToParse)
        #expect(aggregationFailure([["$lookup": ["from": "x", "localField": "a", "as": "b"]]])?.code == .failedToParse)
        #expect(
            aggregationFailure([["$lookup": ["from": "x", "as": "b", "pipeline": [["$bogus": 1]]]]])?.code == 40324)
        #expect(
            aggregationFailure([["$lookup": ["from": "x", "as": "b", "let": ["A": 1], "pipeline": []]]])?.code == 16870)
    }

    /// The push-notification tutorial's `onBookUpdated` pipeline, exactly as the article writes it: registered users
    /// with the book among their favourites, merged with their custom user data, down to their tokens.
    @Test func theTutorialsFavouriteReadersPipelineRunsAsWritten() throws {
        let stages = try ExtendedJSON.parseDocuments(
            #"""
            [
              {"$match": {"favoriteBooks": {"$oid": "62a0da5d860040b7938eab00"}, "registered": true}},
              {"$lookup": {"from": "customUserData", "localField": "_id", "foreignField": "userId", "as": "customData"}},
              {"$replaceRoot": {"newRoot": {"$mergeObjects": [{"$arrayElemAt": ["$customData", 0]}, "$$ROOT"]}}},
              {"$project": {"_id": 0, "FCMToken": 1}}
            ]
            """#)
        let book = BSON.objectId(try #require(ObjectId(hex: "62a0da5d860040b7938eab00")))
        let users: [BSONDocument] = [
            ["_id": "u1", "registered": true, "favoriteBooks": [.objectId(ObjectId()), book]],
            ["_id": "u2", "registered": true, "favoriteBooks": [book]],
            ["_id": "u3", "registered": false, "favoriteBooks": [book]],
            ["_id": "u4", "registered": true, "favoriteBooks": []],
        ]
        let customUserData: [BSONDocument] = [
            ["_id": .objectId(ObjectId()), "userId": "u1", "color": "#1AA7ECFF", "FCMToken": ["a", "b"]],
            ["_id": .objectId(ObjectId()), "userId": "u3", "FCMToken": ["c"]],
        ]
        let output = try aggregate(stages, users, source: MemorySource(collections: ["customUserData": customUserData]))
        // u2 has no custom user data: `$arrayElemAt` of an empty array is missing, which `$mergeObjects` skips.
        #expect(output == [["FCMToken": ["a", "b"]], [:]])
    }
}
