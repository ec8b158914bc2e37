import BSON
import DocumentStore
import Testing

@Suite struct PipelineTests {
    @Test func stagesAreOneFieldDocumentsWithKnownNames() {
        let unknown = aggregationFailure([["$foo": 1]])
        #expect(unknown?.code == 40324)
        #expect(unknown?.message == "Unrecognized pipeline stage name: '$foo'")
        #expect(aggregationFailure([["$limit": 1, "$skip": 1]])?.code == 40323)
        #expect(aggregationFailure([[:]])?.code == 40323)
    }

    @Test func emptyPipelinePassesDocumentsThrough() throws {
        let input: [BSONDocument] = [["_id": 1], ["_id": 2]]
        #expect(try aggregate([], input) == input)
    }

    // MARK: $match with $expr (the rest of $match is QueryFilter's, see PipelineQueryTests)

    @Test func matchEvaluatesExpr() throws {
        let input: [BSONDocument] = [["_id": 1, "spent": 90, "budget": 100], ["_id": 2, "spent": 120, "budget": 100]]
        let output = try aggregate([["$match": ["$expr": ["$gt": ["$spent", "$budget"]]]]], input)
        #expect(output == [["_id": 2, "spent": 120, "budget": 100]])
        #expect(aggregationFailure([["$match": 1]])?.code == 15959)
    }

    // MARK: $project

    @Test func projectInclusionKeepsIdUnlessExcluded() throws {
        let input: [BSONDocument] = [["_id": 1, "title": "Dune", "author": "Herbert", "year": 1965]]
        #expect(
            try aggregate([["$project": ["title": 1, "year": true]]], input) == [
                ["_id": 1, "title": "Dune", "year": 1965]
            ])
        #expect(try aggregate([["$project": ["title": 1, "_id": 0]]], input) == [["title": "Dune"]])
        #expect(try aggregate([["$project": ["_id": 1]]], input) == [["_id": 1]])
        #expect(
            try aggregate([["$project": ["_id": 0]]], input) == [["title": "Dune", "author": "Herbert", "year": 1965]])
    }

    @Test func projectExclusionRemovesFieldsAtAnyDepth() throws {
        let input: BSONDocument = ["_id": 1, "a": ["b": 1, "c": 2], "list": [["b": 1, "c": 2], 7], "d": 4]
        let output = try aggregate([["$project": ["a.b": 0, "list.b": 0, "d": false]]], [input])
        #expect(output == [["_id": 1, "a": ["c": 2], "list": [["c": 2], 7]]])
    }

    @Test func projectComputedFieldsFollowIncludedOnesAndMissingIsOmitted() throws {
        let input: [BSONDocument] = [["_id": 1, "a": 5, "b": 6, "name": ["first": "Ann", "last": "Lee"]]]
        let output = try aggregate(
            [["$project": ["a": ["$add": ["$a", 1]], "b": 1, "gone": "$nope", "last": "$name.last", "tag": "x"]]],
            input)
        #expect(output == [["_id": 1, "b": 6, "a": 6, "last": "Lee", "tag": "x"]])
    }

    @Test func projectNestedInclusionWalksArraysAndDropsScalars() throws {
        let input: BSONDocument = [
            "_id": 1, "a": [["b": 1, "c": 2], 3, [["b": 4]]], "s": 5, "d": ["b": 1, "c": 2],
        ]
        let output = try aggregate([["$project": ["a.b": 1, "s.b": 1, "d": ["c": 1, "e": "$s"]]]], [input])
        #expect(output == [["_id": 1, "a": [["b": 1], [["b": 4]]], "d": ["c": 2, "e": 5]]])
    }

    @Test func projectRefusesMixingAndCollisions() {
        let exclusion = aggregationFailure([["$project": ["a": 1, "b": 0]]])
        #expect(exclusion?.code == 31253)
        #expect(
            exclusion?.message
                == "Invalid $project :: caused by :: Cannot do exclusion on field b in inclusion projection")
        #expect(aggregationFailure([["$project": ["a": 0, "b": 1]]])?.code == 31254)
        #expect(aggregationFailure([["$project": ["a": 0, "b": "$x"]]])?.code == 31252)
        #expect(aggregationFailure([["$project": ["a": 1, "a.b": 1]]])?.code == 31250)
        #expect(aggregationFailure([["$project": [:]]])?.code == 51272)
        #expect(aggregationFailure([["$project": ["a": [:]]]])?.code == 51270)
        #expect(aggregationFailure([["$project": ["$a": 1]]])?.code == 16410)
    }

    // MARK: $addFields / $set / $unset

    @Test func addFieldsReplacesInPlaceAppendsAndRemoves() throws {
        let input: [BSONDocument] = [["_id": 1, "a": 1, "b": 2, "c": 3]]
        let output = try aggregate(
            [["$addFields": ["a": ["$multiply": ["$a", 10]], "z": true, "b": "$$REMOVE", "m": "$nope"]]], input)
        #expect(output == [["_id": 1, "a": 10, "c": 3, "z": true]])
    }

    @Test func setMergesIntoEmbeddedDocumentsAndArrays() throws {
        let input: [BSONDocument] = [["_id": 1, "specs": ["doors": 4], "parts": [["n": 1], 2], "s": "x"]]
        let output = try aggregate(
            [["$set": ["specs": ["fuel": "unleaded"], "parts.ok": true, "s.t": 1, "new.deep": "$_id"]]], input)
        #expect(
            output == [
                [
                    "_id": 1, "specs": ["doors": 4, "fuel": "unleaded"],
                    "parts": [["n": 1, "ok": true], ["ok": true]],
                    "s": ["t": 1], "new": ["deep": 1],
                ]
            ])
        #expect(try aggregate([["$set": ["e": [:]]]], [["_id": 1]]) == [["_id": 1, "e": [:]]])
        #expect(aggregationFailure([["$set": ["a": 1, "a.b": 2]]])?.code == 31250)
    }

    @Test func unsetRemovesNamedFieldsIncludingId() throws {
        let input: [BSONDocument] = [["_id": 1, "a": ["b": 1, "c": 2], "d": 3]]
        #expect(try aggregate([["$unset": "d"]], input) == [["_id": 1, "a": ["b": 1, "c": 2]]])
        #expect(try aggregate([["$unset": ["_id", "a.b"]]], input) == [["a": ["c": 2], "d": 3]])
        #expect(aggregationFailure([["$unset": 1]])?.code == 31002)
        #expect(aggregationFailure([["$unset": [1]]])?.code == 31120)
    }

    // MARK: $unwind

    @Test func unwindStringFormDropsEmptyNullMissingAndKeepsScalars() throws {
        let input: [BSONDocument] = [
            ["_id": 1, "sizes": ["S", "M"]], ["_id": 2, "sizes": []], ["_id": 3, "sizes": .null], ["_id": 4],
            ["_id": 5, "sizes": "L"],
        ]
        let output = try aggregate([["$unwind": "$sizes"]], input)
        #expect(output == [["_id": 1, "sizes": "S"], ["_id": 1, "sizes": "M"], ["_id": 5, "sizes": "L"]])
        #expect(aggregationFailure([["$unwind": "sizes"]])?.code == 28818)
    }

    @Test func unwindObjectFormWithIndexAndPreservation() throws {
        let input: [BSONDocument] = [
            ["_id": 1, "item": ["sizes": ["S", "M"]]], ["_id": 2, "item": ["sizes": []]],
            ["_id": 3, "item": ["sizes": .null]],
            ["_id": 4],
        ]
        let stage: BSONDocument = [
            "$unwind": ["path": "$item.sizes", "includeArrayIndex": "at", "preserveNullAndEmptyArrays": true]
        ]
        let output = try aggregate([stage], input)
        #expect(
            output == [
                ["_id": 1, "item": ["sizes": "S"], "at": .int64(0)],
                ["_id": 1, "item": ["sizes": "M"], "at": .int64(1)],
                ["_id": 2, "item": [:], "at": .null], ["_id": 3, "item": ["sizes": .null], "at": .null],
                ["_id": 4, "at": .null],
            ])
        #expect(aggregationFailure([["$unwind": ["path": "$a", "bogus": 1]]])?.code == 28811)
        #expect(aggregationFailure([["$unwind": ["path": "$a", "includeArrayIndex": "$i"]]])?.code == 28822)
    }

    // MARK: $group

    @Test func groupKeysMissingAndNullTogetherInFirstSeenOrder() throws {
        let input: [BSONDocument] = [
            ["_id": 1, "k": "b"], ["_id": 2], ["_id": 3, "k": .null], ["_id": 4, "k": "a"], ["_id": 5, "k": "b"],
            ["_id": 6, "k": 1], ["_id": 7, "k": 1.0],
        ]
        let output = try aggregate([["$group": ["_id": "$k", "ids": ["$push": "$_id"]]]], input)
        #expect(
            output == [
                ["_id": "b", "ids": [1, 5]], ["_id": .null, "ids": [2, 3]], ["_id": "a", "ids": [4]],
                ["_id": 1, "ids": [6, 7]],
            ])
    }

    @Test func groupByDocumentKeysOmitsMissingFields() throws {
        let input: [BSONDocument] = [["_id": 1, "c": "x"], ["_id": 2], ["_id": 3, "c": "x"]]
        let output = try aggregate([["$group": ["_id": ["city": "$c"], "n": ["$count": [:]]]]], input)
        #expect(output == [["_id": ["city": "x"], "n": 2], ["_id": [:], "n": 1]])
        let all = try aggregate([["$group": ["_id": .null, "n": ["$sum": 1]]]], input)
        #expect(all == [["_id": .null, "n": 3]])
    }

    @Test func groupAccumulatorsFollowMongoDBTypeRules() throws {
        let input: [BSONDocument] = [
            ["v": 1, "s": "a"], ["v": 2.5, "s": "b"], ["v": "text", "s": "a"], ["v": .null], ["s": 1.0],
            ["v": .int64(3)],
        ]
        let output = try aggregate(
            [
                [
                    "$group": [
                        "_id": .null, "sum": ["$sum": "$v"], "avg": ["$avg": "$v"], "min": ["$min": "$v"],
                        "max": ["$max": "$v"], "push": ["$push": "$v"], "set": ["$addToSet": "$s"],
                        "first": ["$first": "$v"], "last": ["$last": "$s"], "noNumbers": ["$avg": "$s"],
                        "count": ["$count": [:]],
                    ]
                ]
            ], input)
        #expect(
            output == [
                [
                    "_id": .null, "sum": 6.5, "avg": .double(6.5 / 3), "min": 1, "max": "text",
                    "push": [1, 2.5, "text", .null, .int64(3)], "set": ["a", "b", 1.0], "first": 1, "last": .null,
                    "noNumbers": 1.0, "count": 6,
                ]
            ])
    }

    @Test func groupSumPromotesAndAvgOfNothingIsNull() throws {
        let input: [BSONDocument] = [["v": .int32(.max)], ["v": 1], ["w": "x"]]
        let output = try aggregate(
            [["$group": ["_id": 0, "sum": ["$sum": "$v"], "avg": ["$avg": "$w"], "min": ["$min": "$w2"]]]], input)
        #expect(output == [["_id": 0, "sum": .int64(Int64(Int32.max) + 1), "avg": .null, "min": .null]])
    }

    @Test func groupSpecificationErrors() {
        #expect(aggregationFailure([["$group": ["n": ["$sum": 1]]]])?.code == 15955)
        #expect(
            aggregationFailure([["$group": ["_id": .null, "n": ["$median": 1]]]])?.message
                == "unknown group operator '$median'")
        #expect(aggregationFailure([["$group": ["_id": .null, "n": 1]]])?.code == 40234)
        #expect(aggregationFailure([["$group": ["_id": .null, "a.b": ["$sum": 1]]]])?.code == 40235)
        #expect(aggregationFailure([["$group": ["_id": .null, "n": ["$sum": 1, "$avg": 1]]]])?.code == 40238)
    }

    // MARK: $skip, $limit, $count

    @Test func skipLimitAndCount() throws {
        let input: [BSONDocument] = (1...5).map { ["_id": .int32(Int32($0))] }
        #expect(try aggregate([["$skip": 1], ["$limit": 2]], input) == [["_id": 2], ["_id": 3]])
        #expect(try aggregate([["$skip": 10]], input) == [])
        #expect(try aggregate([["$count": "total"]], input) == [["total": 5]])
        #expect(try aggregate([["$count": "total"]], []) == [])
        #expect(aggregationFailure([["$limit": 0]])?.code == 5_107_201)
        #expect(aggregationFailure([["$skip": -1]])?.code == 5_107_200)
        #expect(aggregationFailure([["$count": "$x"]])?.code == 40158)
        #expect(aggregationFailure([["$count": "a.b"]])?.code == 40160)
    }

    // MARK: $replaceRoot / $replaceWith

    @Test func replaceRootWithMergedDocuments() throws {
        let input: [BSONDocument] = [["_id": 1, "name": "Ann", "pets": ["dogs": 2]], ["_id": 2, "name": "Bo"]]
        let output = try aggregate(
            [["$replaceRoot": ["newRoot": ["$mergeObjects": [["dogs": 0, "cats": 0], "$pets"]]]]], input)
        #expect(output == [["dogs": 2, "cats": 0], ["dogs": 0, "cats": 0]])
        #expect(try aggregate([["$replaceWith": "$pets"]], [input[0]]) == [["dogs": 2]])
    }

    @Test func replaceRootRefusesNonDocuments() {
        let error = aggregationFailure([["$replaceRoot": ["newRoot": "$name"]]], [["_id": 1, "name": "Ann"]])
        #expect(error?.code == 40228)
        #expect(
            error?.message
                == "'newRoot' expression must evaluate to an object, but resulting value was: \"Ann\". Type of resulting value: 'string'. Input document: {_id: 1, name: \"Ann\"}"
        )
        #expect(aggregationFailure([["$replaceWith": "$nope"]])?.message.contains("MISSING") == true)
        #expect(aggregationFailure([["$replaceRoot": ["root": "$a"]]])?.code == 40230)
    }

    // MARK: $facet

    @Test func facetRunsEverySubPipelineOverTheSameInput() throws {
        let input: [BSONDocument] = [["_id": 1, "k": "a"], ["_id": 2, "k": "b"], ["_id": 3, "k": "a"]]
        let output = try aggregate(
            [
                [
                    "$facet": [
                        "total": [["$count": "n"]],
                        "byKey": [["$group": ["_id": "$k", "n": ["$sum": 1]]]],
                        "none": [["$skip": 10]],
                    ]
                ]
            ], input)
        #expect(
            output == [
                [
                    "total": [["n": 3]], "byKey": [["_id": "a", "n": 2], ["_id": "b", "n": 1]], "none": [],
                ]
            ])
        #expect(aggregationFailure([["$facet": ["x": [["$facet": ["y": [["$limit": 1]]]]]]]])?.code == 40600)
        #expect(aggregationFailure([["$facet": ["x": 1]]])?.code == 40170)
    }
}
