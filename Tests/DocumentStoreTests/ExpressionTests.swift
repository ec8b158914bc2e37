import BSON
import DocumentStore
import Testing

/// Evaluates `expression` against `document`; nil means missing.
private func evaluate(_ expression: BSON, _ document: BSONDocument = [:], variables: [String: BSON] = [:]) throws
    -> BSON?
{
    try Expression(expression).evaluateIfPresent(document, variables: variables)
}

/// The error that compiling or evaluating `expression` throws.
private func failure(_ expression: BSON, _ document: BSONDocument = [:]) -> StoreError? {
    do {
        _ = try Expression(expression).evaluateIfPresent(document)
        return nil
    } catch {
        return error
    }
}

@Suite struct ExpressionTests {
    // MARK: paths, variables, literals

    @Test func fieldPathsReadNestedDocumentsAndSpreadOverArrays() throws {
        let order: BSONDocument = [
            "customer": ["name": "Ann"],
            "items": [["price": 5, "qty": 1], ["qty": 2], ["price": 7.5], 3],
        ]
        #expect(try evaluate("$customer.name", order) == "Ann")
        #expect(try evaluate("$items.price", order) == [5, 7.5])
        #expect(try evaluate("$customer.nope", order) == nil)
        // A numeric component names a field; it does not index the array.
        #expect(try evaluate("$items.0", order) == [])
    }

    @Test func systemAndUserVariables() throws {
        let document: BSONDocument = ["a": ["b": 1]]
        #expect(try evaluate("$$ROOT", document) == .document(document))
        #expect(try evaluate("$$CURRENT.a.b", document) == 1)
        #expect(try evaluate("$$REMOVE", document) == nil)
        #expect(try evaluate("$$bookId", document, variables: ["bookId": "b1"]) == "b1")
        #expect(failure("$$bookId")?.code == 17276)
        #expect(failure("$$Upper")?.code == 16870)
        #expect(try evaluate(["$literal": "$notAPath"]) == "$notAPath")
        #expect(try evaluate(["$literal": ["$add": [1, 2]]]) == ["$add": [1, 2]])
    }

    @Test func objectExpressionsOmitMissingFieldsAndArraysHoldNull() throws {
        let document: BSONDocument = ["x": 1, "n": .null]
        #expect(
            try evaluate(["a": "$x", "b": "$nope", "c": "$n", "d": ["$add": ["$x", 1]]], document)
                == ["a": 1, "c": .null, "d": 2])
        #expect(try evaluate(["$x", "$nope"], document) == [1, .null])
    }

    @Test func malformedExpressionsAreRefused() {
        let unknown = failure(["$foo": 1])
        #expect(unknown?.code == .invalidPipelineOperator)
        #expect(unknown?.codeName == "InvalidPipelineOperator")
        #expect(unknown?.message == "Unrecognized expression '$foo'")
        #expect(failure(["$add": [1], "b": 1])?.code == 15983)
        #expect(failure(["a": 1, "$b": 1])?.code == 16410)
        #expect(failure("$")?.code == 16872)
        #expect(failure("$a..b")?.code == 15998)
        #expect(
            failure(["$subtract": [1]])?.message == "Expression $subtract takes exactly 2 arguments. 1 were passed in.")
    }

    // MARK: arithmetic

    @Test func addPromotesOnOverflowAndMixesTypes() throws {
        #expect(try evaluate(["$add": [1, 2]]) == .int32(3))
        #expect(try evaluate(["$add": [.int32(.max), 1]]) == .int64(Int64(Int32.max) + 1))
        #expect(try evaluate(["$add": [.int64(.max), 1]]) == .double(Double(Int64.max) + 1))
        #expect(try evaluate(["$add": [1, .int64(2)]]) == .int64(3))
        #expect(try evaluate(["$add": [1, 2.5]]) == .double(3.5))
        #expect(try evaluate(["$add": [1, "$nope"]]) == .null)
        #expect(try evaluate(["$add": [1, .null]]) == .null)
        #expect(try evaluate(["$add": []]) == .int32(0))
        let error = failure(["$add": [1, "a"]])
        #expect(error?.code == 16554)
        #expect(error?.message == "$add only supports numeric or date types, not string")
    }

    @Test func datesTakeMillisecondsInAddAndSubtract() throws {
        let date = BSON.datetime(BSONDate(millisecondsSinceEpoch: 1_000_000))
        let later = BSON.datetime(BSONDate(millisecondsSinceEpoch: 1_003_600))
        #expect(try evaluate(["$add": [date, 3600]]) == later)
        #expect(try evaluate(["$add": [3599.5, date]]) == later)
        #expect(try evaluate(["$subtract": [later, date]]) == .int64(3600))
        #expect(try evaluate(["$subtract": [later, 3600]]) == date)
        #expect(failure(["$add": [date, date]])?.code == 16612)
        #expect(failure(["$subtract": [1, date]])?.message == "can't $subtract date from int")
    }

    @Test func subtractMultiplyDivideMod() throws {
        #expect(try evaluate(["$subtract": [.int32(.min), 1]]) == .int64(Int64(Int32.min) - 1))
        #expect(try evaluate(["$subtract": [5, 1.5]]) == 3.5)
        #expect(try evaluate(["$multiply": [2, 3, 4]]) == .int32(24))
        #expect(try evaluate(["$multiply": [65536, 65536]]) == .int64(4_294_967_296))
        #expect(try evaluate(["$multiply": [2, 0.5]]) == .double(1))
        #expect(try evaluate(["$divide": [9, 2]]) == .double(4.5))
        #expect(failure(["$divide": [1, 0]])?.message == "can't $divide by zero")
        #expect(failure(["$divide": ["a", 1]])?.code == 16609)
        #expect(try evaluate(["$mod": [7, 3]]) == .int32(1))
        #expect(try evaluate(["$mod": [-7, .int64(3)]]) == .int64(-1))
        #expect(try evaluate(["$mod": [7.5, 2]]) == .double(1.5))
        #expect(failure(["$mod": [7, 0]])?.code == 16610)
    }

    @Test func absCeilFloorRoundTrunc() throws {
        #expect(try evaluate(["$abs": -5]) == .int32(5))
        #expect(try evaluate(["$abs": [.int32(.min)]]) == .int64(2_147_483_648))
        #expect(try evaluate(["$abs": .null]) == .null)
        #expect(failure(["$abs": "x"])?.message == "$abs only supports numeric types, not string")
        #expect(try evaluate(["$ceil": 1.2]) == 2.0)
        #expect(try evaluate(["$floor": -1.2]) == -2.0)
        #expect(try evaluate(["$floor": 3]) == .int32(3))
        // The manual's $round examples: half to even.
        #expect(try evaluate(["$round": [19.25, 1]]) == 19.2)
        #expect(try evaluate(["$round": [28.73, 1]]) == 28.7)
        #expect(try evaluate(["$round": [-45.39, 1]]) == -45.4)
        #expect(try evaluate(["$round": [2.5]]) == 2.0)
        #expect(try evaluate(["$round": [1250, -2]]) == .int32(1200))
        #expect(try evaluate(["$round": [1350, -2]]) == .int32(1400))
        #expect(try evaluate(["$trunc": [19.99, 1]]) == 19.9)
        #expect(try evaluate(["$trunc": [-1299, -2]]) == .int32(-1200))
        #expect(failure(["$round": [1.5, 101]])?.code == 51083)
    }

    // MARK: comparison and logic

    @Test func comparisonsUseMongoDBOrderAcrossTypes() throws {
        #expect(try evaluate(["$eq": [1, 1.0]]) == true)
        #expect(try evaluate(["$eq": ["$nope", .null]]) == false)
        #expect(try evaluate(["$lt": ["$nope", .null]]) == true)
        #expect(try evaluate(["$gt": ["a", 5]]) == true)
        #expect(try evaluate(["$gte": [2, .int64(2)]]) == true)
        #expect(try evaluate(["$ne": [[1, 2], [1, 2]]]) == false)
        #expect(try evaluate(["$lte": [.null, 0]]) == true)
        #expect(try evaluate(["$cmp": ["b", "a"]]) == .int32(1))
        #expect(try evaluate(["$cmp": [1, 2.5]]) == .int32(-1))
    }

    @Test func booleansUseAggregationTruth() throws {
        #expect(try evaluate(["$and": [1, "", []]]) == true)
        #expect(try evaluate(["$and": [1, 0]]) == false)
        #expect(try evaluate(["$and": []]) == true)
        #expect(try evaluate(["$or": [.null, "$nope", false]]) == false)
        #expect(try evaluate(["$or": [.null, 0.1]]) == true)
        #expect(try evaluate(["$not": [.null]]) == true)
        #expect(try evaluate(["$not": [[]]]) == false)
        // Short-circuit: the failing operand is never evaluated.
        #expect(try evaluate(["$or": [true, ["$size": "x"]]]) == true)
    }

    @Test func condIfNullSwitch() throws {
        let doc: BSONDocument = ["qty": 300, "n": .null]
        #expect(try evaluate(["$cond": [["$gte": ["$qty", 250]], 30, 20]], doc) == 30)
        #expect(try evaluate(["$cond": ["if": ["$lt": ["$qty", 250]], "then": 30, "else": 20]], doc) == 20)
        #expect(failure(["$cond": ["if": true, "else": 1]])?.message == "Missing 'then' parameter to $cond")
        #expect(failure(["$cond": [true, 1]])?.code == 16020)
        #expect(try evaluate(["$ifNull": ["$n", "$nope", "fallback"]], doc) == "fallback")
        #expect(try evaluate(["$ifNull": ["$nope", "$qty"]], doc) == 300)
        #expect(try evaluate(["$ifNull": ["$n", "$nope"]], doc) == nil)
        #expect(failure(["$ifNull": ["$n"]])?.code == 1_257_300)
        let grade: BSON = [
            "$switch": [
                "branches": [
                    ["case": ["$gte": ["$qty", 500]], "then": "bulk"],
                    ["case": ["$gte": ["$qty", 100]], "then": "case"],
                ],
                "default": "single",
            ]
        ]
        #expect(try evaluate(grade, doc) == "case")
        #expect(try evaluate(grade, ["qty": 1]) == "single")
        let noDefault: BSON = ["$switch": ["branches": [["case": false, "then": 1]]]]
        #expect(failure(noDefault)?.code == 40066)
    }

    // MARK: arrays

    @Test func inAndSizeRequireArrays() throws {
        #expect(try evaluate(["$in": [2.0, [1, 2, 3]]]) == true)
        #expect(try evaluate(["$in": ["$nope", [.null]]]) == false)
        let inError = failure(["$in": [1, "abc"]])
        #expect(inError?.code == 40081)
        #expect(inError?.message == "$in requires an array as a second argument, found: string")
        #expect(try evaluate(["$size": [[1, 2, 3]]]) == .int32(3))
        let sizeError = failure(["$size": "abc"])
        #expect(sizeError?.code == 17124)
        #expect(sizeError?.message == "The argument to $size must be an array. Type of argument: string")
        #expect(
            failure(["$size": "$nope"])?.message == "The argument to $size must be an array. Type of argument: missing")
    }

    @Test func arrayElementsConcatenationAndEnds() throws {
        let doc: BSONDocument = ["a": [1, 2, 3]]
        #expect(try evaluate(["$arrayElemAt": ["$a", 0]], doc) == 1)
        #expect(try evaluate(["$arrayElemAt": ["$a", -1]], doc) == 3)
        #expect(try evaluate(["$arrayElemAt": ["$a", 15]], doc) == nil)
        #expect(failure(["$arrayElemAt": ["x", 0]])?.code == 28689)
        #expect(try evaluate(["$concatArrays": ["$a", [4], []]], doc) == [1, 2, 3, 4])
        #expect(try evaluate(["$concatArrays": ["$a", "$nope"]], doc) == .null)
        #expect(failure(["$concatArrays": ["$a", 1]], doc)?.code == 28664)
        #expect(try evaluate(["$first": "$a"], doc) == 1)
        #expect(try evaluate(["$last": "$a"], doc) == 3)
        #expect(try evaluate(["$first": [[]]]) == nil)
        #expect(try evaluate(["$isArray": "$a"], doc) == true)
        #expect(try evaluate(["$isArray": ["$nope"]], doc) == false)
        #expect(try evaluate(["$setUnion": [[1, 2], [2.0, 3], []]]) == [1, 2, 3])
        #expect(try evaluate(["$setUnion": [[1], .null]]) == .null)
    }

    @Test func filterMapAndLet() throws {
        let doc: BSONDocument = ["items": [["price": 5], ["price": 50], ["price": 500]], "min": 10]
        let expensive: BSON = [
            "$filter": ["input": "$items", "as": "item", "cond": ["$gte": ["$$item.price", "$min"]]]
        ]
        #expect(try evaluate(expensive, doc) == [["price": 50], ["price": 500]])
        let first: BSON = ["$filter": ["input": "$items", "cond": ["$gt": ["$$this.price", 1]], "limit": 1]]
        #expect(try evaluate(first, doc) == [["price": 5]])
        #expect(try evaluate(["$filter": ["input": "$nope", "cond": true]], doc) == .null)
        #expect(failure(["$filter": ["input": 1, "cond": true]])?.code == 28651)
        let prices: BSON = ["$map": ["input": "$items", "as": "i", "in": ["$multiply": ["$$i.price", 2]]]]
        #expect(try evaluate(prices, doc) == [10, 100, 1000])
        #expect(try evaluate(["$map": ["input": [1, 2], "in": "$$this.x"]]) == [.null, .null])
        let total: BSON = [
            "$let": ["vars": ["low": 1, "high": "$min"], "in": ["$add": ["$$low", "$$high"]]]
        ]
        #expect(try evaluate(total, doc) == 11)
        #expect(failure(["$let": ["vars": ["Bad": 1], "in": 1]])?.code == 16870)
    }

    @Test func arrayFormsOfSumAvgMinMax() throws {
        let doc: BSONDocument = ["scores": [10, 2.5, "x", .null], "none": ["a"]]
        #expect(try evaluate(["$sum": "$scores"], doc) == 12.5)
        #expect(try evaluate(["$sum": ["$scores"]], doc) == 12.5)
        #expect(try evaluate(["$sum": [1, "$scores", 2]], doc) == .int32(3))
        #expect(try evaluate(["$sum": "$none"], doc) == .int32(0))
        #expect(try evaluate(["$avg": [1, 2]]) == 1.5)
        #expect(try evaluate(["$avg": "$none"], doc) == .null)
        #expect(try evaluate(["$min": "$scores"], doc) == 2.5)
        #expect(try evaluate(["$max": "$scores"], doc) == "x")
        #expect(try evaluate(["$max": [.null, "$nope"]], doc) == .null)
    }

    // MARK: strings

    @Test func concatIsNullWhenAnyPartIsNullOrMissing() throws {
        #expect(try evaluate(["$concat": ["a", "-", "b"]]) == "a-b")
        #expect(try evaluate(["$concat": ["a", .null]]) == .null)
        #expect(try evaluate(["$concat": ["a", "$nope"]]) == .null)
        let error = failure(["$concat": ["a", 1]])
        #expect(error?.code == 16702)
        #expect(error?.message == "$concat only supports strings, not int")
    }

    @Test func caseSubstringsLengthsAndSplit() throws {
        #expect(try evaluate(["$toUpper": "abc Ä1"]) == "ABC Ä1")
        #expect(try evaluate(["$toLower": "ABC"]) == "abc")
        #expect(try evaluate(["$toLower": .null]) == "")
        #expect(try evaluate(["$toUpper": 12]) == "12")
        #expect(try evaluate(["$substrCP": ["cafétéria", 0, 4]]) == "café")
        #expect(try evaluate(["$substrCP": ["abc", 2, 10]]) == "c")
        #expect(failure(["$substrCP": ["abc", -1, 1]])?.code == 34455)
        #expect(try evaluate(["$strLenCP": "cafété"]) == .int32(6))
        #expect(failure(["$strLenCP": 1])?.code == 34471)
        #expect(try evaluate(["$split": ["June-15-2013", "-"]]) == ["June", "15", "2013"])
        #expect(try evaluate(["$split": ["a,,b,", ","]]) == ["a", "", "b", ""])
        #expect(try evaluate(["$split": [.null, ","]]) == .null)
        #expect(failure(["$split": ["a", ""]])?.code == 40087)
    }

    // MARK: conversion and types

    @Test func toStringFormatsEachType() throws {
        let id = ObjectId(hex: "5ab9cbfa31c2ab715d42129e")!
        #expect(try evaluate(["$toString": 42]) == "42")
        #expect(try evaluate(["$toString": .int64(-7)]) == "-7")
        #expect(try evaluate(["$toString": 2.5]) == "2.5")
        #expect(try evaluate(["$toString": 1.0]) == "1")
        #expect(try evaluate(["$toString": .objectId(id)]) == "5ab9cbfa31c2ab715d42129e")
        #expect(
            try evaluate(["$toString": .datetime(BSONDate(millisecondsSinceEpoch: 1_520_312_824_123))])
                == "2018-03-06T05:07:04.123Z")
        #expect(
            try evaluate(["$toString": .datetime(BSONDate(millisecondsSinceEpoch: -1))])
                == "1969-12-31T23:59:59.999Z")
        #expect(try evaluate(["$toString": true]) == "true")
        #expect(try evaluate(["$toString": "$nope"]) == .null)
        #expect(failure(["$toString": [["a": 1]]])?.code == .conversionFailure)
    }

    @Test func numericAndObjectIdConversions() throws {
        #expect(try evaluate(["$toInt": "42"]) == .int32(42))
        #expect(try evaluate(["$toInt": 5.9]) == .int32(5))
        #expect(try evaluate(["$toInt": true]) == .int32(1))
        #expect(failure(["$toInt": "4x"])?.code == .conversionFailure)
        #expect(failure(["$toInt": .int64(1 << 40)])?.code == .conversionFailure)
        #expect(try evaluate(["$toLong": "-9000000000"]) == .int64(-9_000_000_000))
        #expect(try evaluate(["$toLong": .datetime(BSONDate(millisecondsSinceEpoch: 12))]) == .int64(12))
        #expect(try evaluate(["$toDouble": "2.5"]) == .double(2.5))
        #expect(try evaluate(["$toDouble": 3]) == .double(3))
        #expect(try evaluate(["$toBool": 0]) == false)
        #expect(try evaluate(["$toBool": ""]) == true)
        #expect(try evaluate(["$toBool": .null]) == .null)
        let hex = "5ab9cbfa31c2ab715d42129e"
        #expect(try evaluate(["$toObjectId": .string(hex)]) == .objectId(ObjectId(hex: hex)!))
        #expect(failure(["$toObjectId": "xyz"])?.code == .conversionFailure)
        #expect(try evaluate(["$type": "$nope"]) == "missing")
        #expect(try evaluate(["$type": [[1]]]) == "array")
        #expect(try evaluate(["$type": .int64(1)]) == "long")
    }

    // MARK: objects

    @Test func mergeObjectsAndObjectArrayConversions() throws {
        let doc: BSONDocument = ["a": ["x": 1, "y": 2], "b": ["y": 3, "z": 4]]
        #expect(try evaluate(["$mergeObjects": ["$a", "$b", .null, "$nope"]], doc) == ["x": 1, "y": 3, "z": 4])
        #expect(failure(["$mergeObjects": ["$a", 1]], doc)?.code == 40400)
        #expect(try evaluate(["$objectToArray": "$a"], doc) == [["k": "x", "v": 1], ["k": "y", "v": 2]])
        #expect(try evaluate(["$arrayToObject": [[["a", 1], ["b", 2], ["a", 3]]]]) == ["a": 3, "b": 2])
        #expect(try evaluate(["$arrayToObject": [[["k": "p", "v": true]]]]) == ["p": true])
        #expect(failure(["$arrayToObject": [[["a", 1], ["k": "b", "v": 2]]]])?.code == 40391)
        #expect(failure(["$arrayToObject": [[[1, 1]]]])?.code == 40395)
    }
}
