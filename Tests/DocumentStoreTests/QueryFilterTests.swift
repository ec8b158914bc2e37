import BSON
import Testing

@testable import DocumentStore

/// The `_id`s of the documents the filter matches, in order.
func matchingIDs(_ filter: BSONDocument, _ documents: [BSONDocument]) throws -> [Int] {
    let compiled = try QueryFilter(filter)
    return documents.filter { compiled.matches($0) }.compactMap { $0["_id"]?.int64Value.map(Int.init) }
}

func regex(_ pattern: String, _ options: String = "") -> BSON {
    .regex(BSONRegularExpression(pattern: pattern, options: options))
}

/// The error a malformed filter raises.
func filterError(_ filter: BSONDocument) -> StoreError? {
    do {
        _ = try QueryFilter(filter)
        return nil
    } catch {
        return error
    }
}

@Suite struct QueryFilterTests {
    // MARK: Equality, arrays, null

    let inventory: [BSONDocument] = [
        ["_id": 1, "item": "journal", "tags": ["blank", "red"], "dim_cm": [14, 21], "qty": 25],
        ["_id": 2, "item": "notebook", "tags": ["red", "blank"], "dim_cm": [14, 21], "qty": 50],
        ["_id": 3, "item": "paper", "tags": ["red", "blank", "plain"], "dim_cm": [14, 21], "qty": 100],
        ["_id": 4, "item": "planner", "tags": ["blank", "red"], "dim_cm": [22.85, 30], "qty": 75],
        ["_id": 5, "item": "postcard", "tags": ["blue"], "dim_cm": [10, 15.25], "qty": 45],
    ]

    @Test func equalityOnArrayMatchesWholeArrayInOrder() throws {
        #expect(try matchingIDs(["tags": ["red", "blank"]], inventory) == [2])
    }

    @Test func scalarMatchesAnyElement() throws {
        #expect(try matchingIDs(["tags": "red"], inventory) == [1, 2, 3, 4])
        #expect(try matchingIDs(["dim_cm": ["$gt": 25]], inventory) == [4])
    }

    @Test func allIgnoresOrderAndExtraElements() throws {
        #expect(try matchingIDs(["tags": ["$all": ["red", "blank"]]], inventory) == [1, 2, 3, 4])
        #expect(try matchingIDs(["tags": ["$all": []]], inventory) == [])
    }

    @Test func compoundConditionsOnArrayElementsVersusElemMatch() throws {
        // Without $elemMatch, different elements may satisfy each condition.
        #expect(try matchingIDs(["dim_cm": ["$gt": 15, "$lt": 20]], inventory) == [1, 2, 3, 5])
        #expect(try matchingIDs(["dim_cm": ["$elemMatch": ["$gt": 22, "$lt": 30]]], inventory) == [4])
    }

    @Test func elemMatchOnScoresFromTheManual() throws {
        let scores: [BSONDocument] = [
            ["_id": 1, "results": [82, 85, 88]],
            ["_id": 2, "results": [75, 88, 89]],
        ]
        #expect(try matchingIDs(["results": ["$elemMatch": ["$gte": 80, "$lt": 85]]], scores) == [1])
        #expect(try matchingIDs(["results": ["$gte": 80, "$lt": 85]], scores) == [1, 2])
    }

    @Test func elemMatchOnArraysOfDocuments() throws {
        let survey: [BSONDocument] = [
            ["_id": 1, "results": [["product": "abc", "score": 10], ["product": "xyz", "score": 5]]],
            ["_id": 2, "results": [["product": "abc", "score": 8], ["product": "xyz", "score": 7]]],
            ["_id": 3, "results": [["product": "abc", "score": 7], ["product": "xyz", "score": 8]]],
            ["_id": 4, "results": [["product": "abc", "score": 7], ["product": "def", "score": 8]]],
        ]
        #expect(
            try matchingIDs(["results": ["$elemMatch": ["product": "xyz", "score": ["$gte": 8]]]], survey) == [3])
        // Plain dotted conditions may be met by different elements.
        #expect(try matchingIDs(["results.product": "xyz", "results.score": ["$gte": 8]], survey) == [1, 2, 3])
        #expect(try matchingIDs(["results": ["$elemMatch": ["product": ["$ne": "xyz"]]]], survey) == [1, 2, 3, 4])
        #expect(try matchingIDs(["results.product": ["$ne": "xyz"]], survey) == [4])
    }

    @Test func arraysOfArraysTraverseOneLevel() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "a": [[1, 2], [3]]],
            ["_id": 2, "a": [1, [2]]],
            ["_id": 3, "a": [[1, 2]]],
        ]
        #expect(try matchingIDs(["a": 2], documents) == [])
        #expect(try matchingIDs(["a": [2]], documents) == [2])
        #expect(try matchingIDs(["a": [1, 2]], documents) == [1, 3])
        #expect(try matchingIDs(["a": [[1, 2]]], documents) == [3])
        #expect(try matchingIDs(["a": ["$elemMatch": ["$elemMatch": ["$eq": 3]]]], documents) == [1])
        #expect(try matchingIDs(["a": ["$size": 1]], documents) == [3])
    }

    @Test func nullMatchesNullMissingAndArraysHoldingNull() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "item": .null],
            ["_id": 2],
            ["_id": 3, "item": [.null, 1]],
            ["_id": 4, "item": 0],
            ["_id": 5, "item": .undefined],
            ["_id": 6, "item": []],
        ]
        #expect(try matchingIDs(["item": .null], documents) == [1, 2, 3])
        #expect(try matchingIDs(["item": ["$ne": .null]], documents) == [4, 5, 6])
        #expect(try matchingIDs(["item": ["$type": 10]], documents) == [1, 3])
        #expect(try matchingIDs(["item": ["$exists": false]], documents) == [2])
        #expect(try matchingIDs(["item": ["$exists": true]], documents) == [1, 3, 4, 5, 6])
        #expect(try matchingIDs(["item": ["$in": [.null, 0]]], documents) == [1, 2, 3, 4])
        #expect(try matchingIDs(["item": ["$gte": .null]], documents) == [1, 2, 3])
    }

    @Test func nullOnDottedPathsThroughArrays() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "a": [["b": 1], ["c": 2]]],
            ["_id": 2, "a": [["b": 1]]],
            ["_id": 3, "a": [1, 2]],
            ["_id": 4, "a": 5],
        ]
        #expect(try matchingIDs(["a.b": .null], documents) == [1, 4])
        #expect(try matchingIDs(["a.b": ["$exists": false]], documents) == [3, 4])
    }

    @Test func numbersCompareByValueAcrossTypes() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "n": .int32(1)],
            ["_id": 2, "n": .int64(1)],
            ["_id": 3, "n": .double(1.0)],
            ["_id": 4, "n": .double(1.5)],
            ["_id": 5, "n": "1"],
        ]
        #expect(try matchingIDs(["n": .int64(1)], documents) == [1, 2, 3])
        #expect(try matchingIDs(["n": ["$in": [.double(1)]]], documents) == [1, 2, 3])
        #expect(try matchingIDs(["n": ["$gt": 1]], documents) == [4])
    }

    @Test func rangesStayWithinTheTypeBracket() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "a": 10],
            ["_id": 2, "a": "zebra"],
            ["_id": 3, "a": .bool(true)],
            ["_id": 4, "a": .null],
            ["_id": 5],
            ["_id": 6, "a": .double(.nan)],
        ]
        #expect(try matchingIDs(["a": ["$gt": 5]], documents) == [1])
        #expect(try matchingIDs(["a": ["$lt": "b"]], documents) == [])
        #expect(try matchingIDs(["a": ["$gte": "a"]], documents) == [2])
        #expect(try matchingIDs(["a": ["$gt": .minKey]], documents) == [1, 2, 3, 4, 5, 6])
        #expect(try matchingIDs(["a": ["$lt": .double(.infinity)]], documents) == [1])
        #expect(try matchingIDs(["a": .double(.nan)], documents) == [6])
    }

    @Test func dottedPathsWithNumericComponents() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "a": [5, 6]],
            ["_id": 2, "a": [["0": 5]]],
            ["_id": 3, "a": [[5]]],
            ["_id": 4, "a": ["0": 5]],
            ["_id": 5, "a": [["x": 1], ["x": 5]]],
        ]
        #expect(try matchingIDs(["a.0": 5], documents) == [1, 2, 4])
        #expect(try matchingIDs(["a.0": [5]], documents) == [3])
        #expect(try matchingIDs(["a.1.x": 5], documents) == [5])
        #expect(try matchingIDs(["a.0.x": 5], documents) == [])
    }

    @Test func embeddedDocumentEqualityIsExactAndOrdered() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "size": ["h": 14, "w": 21, "uom": "cm"]],
            ["_id": 2, "size": ["w": 21, "h": 14, "uom": "cm"]],
        ]
        #expect(try matchingIDs(["size": ["h": 14, "w": 21, "uom": "cm"]], documents) == [1])
        #expect(try matchingIDs(["size.uom": "cm", "size.h": ["$lt": 15]], documents) == [1, 2])
    }

    // MARK: Logical operators

    @Test func logicalOperators() throws {
        #expect(try matchingIDs(["$or": [["qty": ["$lt": 30]], ["item": "postcard"]]], inventory) == [1, 5])
        #expect(try matchingIDs(["$and": [["qty": ["$gt": 30]], ["qty": ["$lt": 80]]]], inventory) == [2, 4, 5])
        #expect(try matchingIDs(["$nor": [["qty": ["$lt": 30]], ["item": "postcard"]]], inventory) == [2, 3, 4])
        #expect(try matchingIDs(["qty": ["$not": ["$gt": 50]]], inventory) == [1, 2, 5])
        #expect(try matchingIDs(["item": ["$not": regex("^p")]], inventory) == [1, 2])
        #expect(try matchingIDs(["$comment": "ignored", "qty": 25], inventory) == [1])
    }

    @Test func notMatchesMissingFields() throws {
        let documents: [BSONDocument] = [["_id": 1, "price": 2], ["_id": 2, "price": 1.5], ["_id": 3]]
        #expect(try matchingIDs(["price": ["$not": ["$gt": 1.9]]], documents) == [2, 3])
        #expect(try matchingIDs(["price": ["$nin": [2, 5]]], documents) == [2, 3])
    }

    // MARK: Element and evaluation operators

    @Test func typeByNumberAliasAndArray() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "zip": .int32(1)],
            ["_id": 2, "zip": .int64(2)],
            ["_id": 3, "zip": .double(3)],
            ["_id": 4, "zip": "04"],
            ["_id": 5, "zip": ["06", 7]],
            ["_id": 6, "zip": []],
        ]
        #expect(try matchingIDs(["zip": ["$type": 2]], documents) == [4, 5])
        #expect(try matchingIDs(["zip": ["$type": "long"]], documents) == [2])
        #expect(try matchingIDs(["zip": ["$type": "number"]], documents) == [1, 2, 3, 5])
        #expect(try matchingIDs(["zip": ["$type": ["int", "double"]]], documents) == [1, 3, 5])
        #expect(try matchingIDs(["zip": ["$type": "array"]], documents) == [5, 6])
    }

    @Test func sizeCountsTheArrayItself() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "a": [1, 2]],
            ["_id": 2, "a": [[1, 2]]],
            ["_id": 3, "a": [["b": [1, 2]], ["b": [3]]]],
        ]
        #expect(try matchingIDs(["a": ["$size": 2]], documents) == [1, 3])
        #expect(try matchingIDs(["a.b": ["$size": 1]], documents) == [3])
    }

    @Test func regexWithOptions() throws {
        let products: [BSONDocument] = [
            ["_id": 100, "sku": "abc123", "description": "Single line description."],
            ["_id": 101, "sku": "abc789", "description": "First line\nSecond line"],
            ["_id": 102, "sku": "xyz456", "description": "Many spaces before     line"],
            ["_id": 103, "sku": "xyz789", "description": "Multiple\nline description"],
            ["_id": 104, "sku": "Abc789", "description": "SKU is uppercase"],
        ]
        #expect(try matchingIDs(["sku": ["$regex": "789$"]], products) == [101, 103, 104])
        #expect(try matchingIDs(["sku": ["$regex": "^ABC", "$options": "i"]], products) == [100, 101, 104])
        #expect(try matchingIDs(["sku": regex("^ABC", "i")], products) == [100, 101, 104])
        #expect(try matchingIDs(["description": ["$regex": "^S", "$options": "m"]], products) == [100, 101, 104])
        #expect(try matchingIDs(["description": ["$regex": "^S"]], products) == [100, 104])
        #expect(try matchingIDs(["description": ["$regex": "m.*line", "$options": "si"]], products) == [102, 103])
        #expect(
            try matchingIDs(["sku": ["$regex": "abc #category code\n\\d+ #item number", "$options": "x"]], products)
                == [100, 101])
        #expect(try matchingIDs(["sku": ["$in": [regex("^xyz"), "abc123"]]], products) == [100, 102, 103])
    }

    @Test func regexValuesMatchByPatternOrAsStoredRegex() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "a": "acme"],
            ["_id": 2, "a": regex("^ac")],
            ["_id": 3, "a": ["xyz", "acorn"]],
        ]
        #expect(try matchingIDs(["a": regex("^ac")], documents) == [1, 2, 3])
        // $eq with a regex compares regex values only.
        #expect(try matchingIDs(["a": ["$eq": regex("^ac")]], documents) == [2])
    }

    @Test func modIncludingNegativeDividends() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "qty": 0], ["_id": 2, "qty": 5], ["_id": 3, "qty": 12], ["_id": 4, "qty": -12],
            ["_id": 5, "qty": .double(12.9)], ["_id": 6, "qty": .double(.nan)], ["_id": 7, "qty": "12"],
        ]
        #expect(try matchingIDs(["qty": ["$mod": [4, 0]]], documents) == [1, 3, 4, 5])
        #expect(try matchingIDs(["qty": ["$mod": [5, -2]]], documents) == [4])
        #expect(try matchingIDs(["qty": ["$mod": [.double(4.5), 0]]], documents) == [1, 3, 4, 5])
    }

    @Test func allWithElemMatch() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "qty": [["size": "S", "num": 10], ["size": "M", "num": 45]]],
            ["_id": 2, "qty": [["size": "M", "num": 100], ["size": "L", "num": 100]]],
            ["_id": 3, "qty": [["size": "M", "num": 50], ["size": "L", "num": 100]]],
        ]
        let filter: BSONDocument = [
            "qty": [
                "$all": [
                    ["$elemMatch": ["size": "M", "num": ["$gt": 50]]],
                    ["$elemMatch": ["num": 100]],
                ]
            ]
        ]
        #expect(try matchingIDs(filter, documents) == [2])
    }

    @Test func allWithNestedArrayOperand() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "tags": [["ssl", "security"], "x"]],
            ["_id": 2, "tags": ["ssl", "security"]],
            ["_id": 3, "tags": ["security", "ssl"]],
        ]
        #expect(try matchingIDs(["tags": ["$all": [["ssl", "security"]]]], documents) == [1, 2])
    }

    @Test func bitwiseOperators() throws {
        let documents: [BSONDocument] = [["_id": 1, "a": 54], ["_id": 2, "a": 20], ["_id": 3, "a": 102]]
        #expect(try matchingIDs(["a": ["$bitsAllSet": [1, 5]]], documents) == [1, 3])
        #expect(try matchingIDs(["a": ["$bitsAnyClear": 35]], documents) == [1, 2, 3])
        #expect(try matchingIDs(["a": ["$bitsAllClear": [0, 3]]], documents) == [1, 2, 3])
        #expect(try matchingIDs(["a": ["$bitsAnySet": [0, 3]]], documents) == [])
    }

    // MARK: Positional information

    @Test func arrayPositionReportsTheMatchedElement() throws {
        let student: BSONDocument = ["_id": 1, "grades": [85, 80, 80], "scores": [["s": 3], ["s": 9]]]
        #expect(try QueryFilter(["grades": 80]).match(student) == QueryMatch(arrayPosition: 1))
        #expect(try QueryFilter(["scores.s": 9]).match(student) == QueryMatch(arrayPosition: 1))
        #expect(
            try QueryFilter(["scores": ["$elemMatch": ["s": ["$gt": 5]]]]).match(student)
                == QueryMatch(arrayPosition: 1))
        #expect(try QueryFilter(["_id": 1]).match(student) == QueryMatch(arrayPosition: nil))
        #expect(try QueryFilter(["grades": 81]).match(student) == nil)
    }

    // MARK: Errors

    @Test func malformedFiltersFailLikeMongoDB() {
        #expect(filterError(["a": ["$foo": 1]]) == .badValue("unknown operator: $foo"))
        #expect(filterError(["$foo": 1]) == .badValue("unknown top level operator: $foo"))
        #expect(filterError(["a": ["$in": 1]]) == .badValue("$in needs an array"))
        #expect(filterError(["a": ["$nin": "x"]]) == .badValue("$nin needs an array"))
        #expect(filterError(["$and": []]) == .badValue("$and/$or/$nor must be a nonempty array"))
        #expect(filterError(["$or": [1]]) == .badValue("$or/$and/$nor entries need to be full objects"))
        #expect(filterError(["a": ["$elemMatch": 1]]) == .badValue("$elemMatch needs an Object"))
        #expect(filterError(["a": ["$all": 1]]) == .badValue("$all needs an array"))
        #expect(filterError(["a": ["$ne": regex("x")]]) == .badValue("Can't have regex as arg to $ne."))
        #expect(filterError(["a": ["$size": -1]]) == .badValue("$size may not be negative"))
        #expect(filterError(["a": ["$size": "1"]]) == .badValue("$size needs a number"))
        #expect(filterError(["a": ["$not": [:]]]) == .badValue("$not cannot be empty"))
        #expect(filterError(["a": ["$in": [["$gt": 1]]]]) == .badValue("cannot nest $ under $in"))
        #expect(filterError(["a": ["$options": "i"]]) == .badValue("$options needs a $regex"))
        #expect(filterError(["a": ["$regex": "(", "$options": ""]])?.code == 51091)
        #expect(filterError(["a": ["$type": "text"]]) == .badValue("Unknown type name alias: text"))
        #expect(filterError(["a": ["$type": 99]]) == .badValue("Invalid numerical type code: 99"))
        #expect(filterError(["a": ["$type": []]]) == .failedToParse("$type must match at least one type"))
        #expect(
            filterError(["a": ["$all": [["$elemMatch": ["b": 1]], 5]]])
                == .badValue("$all/$elemMatch has to be consistent"))
        #expect(filterError(["a": ["$eq": .undefined]]) == .badValue("cannot compare to undefined"))
        #expect(filterError(["a": ["$elemMatch": ["b": ["$expr": 1]]]]) == .badValue("unknown operator: $expr"))
        #expect(
            filterError(["a": ["$elemMatch": ["$expr": true]]])
                == .badValue("$expr can only be applied to the top-level document"))
        var deep: BSON = ["$gt": 1]
        for _ in 0..<200 { deep = ["$not": deep] }
        #expect(filterError(["a": deep])?.message.contains("depth limit") == true)
    }

    @Test func modArgumentErrors() {
        #expect(filterError(["a": ["$mod": 4]]) == .badValue("malformed mod, needs to be an array"))
        #expect(filterError(["a": ["$mod": [4]]]) == .badValue("malformed mod, not enough elements"))
        #expect(filterError(["a": ["$mod": [4, 1, 2]]]) == .badValue("malformed mod, too many elements"))
        #expect(filterError(["a": ["$mod": ["4", 1]]]) == .badValue("malformed mod, divisor not a number"))
        #expect(filterError(["a": ["$mod": [0, 1]]]) == .badValue("divisor cannot be 0"))
        #expect(
            filterError(["a": ["$mod": [.double(.nan), 1]]])
                == .badValue(
                    "malformed mod, divisor value is invalid :: caused by :: Unable to coerce NaN/Inf to integral type")
        )
    }

    @Test func unsupportedOperatorsAreRejected() {
        #expect(filterError(["$where": "this.a > 1"])?.message.contains("$where is not supported") == true)
        #expect(filterError(["$text": ["$search": "x"]])?.message.contains("$text is not supported") == true)
        #expect(filterError(["loc": ["$near": [0, 0]]])?.message.contains("$near is not supported") == true)
    }

    // MARK: Index planning

    @Test func indexableConditionsListTopLevelEqualitiesRangesAndIn() throws {
        let filter = try QueryFilter([
            "status": "A",
            "qty": ["$gt": 10, "$lte": 50, "$gte": 5],
            "$and": [["sku": ["$in": ["a", "b"]]]],
            "note": .null,
            "$or": [["x": 1], ["y": 2]],
            "tags": ["$size": 2],
        ])
        #expect(
            filter.indexableConditions == [
                IndexableCondition(path: "status", bounds: .equal("A")),
                IndexableCondition(
                    path: "qty",
                    bounds: .range(lower: .init(10, inclusive: false), upper: .init(50, inclusive: true))),
                IndexableCondition(path: "sku", bounds: .in(["a", "b"])),
            ])
        #expect(try QueryFilter([:]).matchesAllDocuments)
        #expect(try !QueryFilter(["a": 1]).matchesAllDocuments)
    }
}

/// `$expr` runs aggregation expressions, implemented on the `aggregation` branch.
@Suite struct QueryFilterExprTests {
    let monthlyBudget: [BSONDocument] = [
        ["_id": 1, "category": "food", "budget": 400, "spent": 450],
        ["_id": 2, "category": "drinks", "budget": 100, "spent": 150],
        ["_id": 3, "category": "clothes", "budget": 100, "spent": 50],
        ["_id": 4, "category": "misc", "budget": 500, "spent": 300],
        ["_id": 5, "category": "travel", "budget": 200, "spent": 650],
    ]

    @Test func exprComparesFieldsOfOneDocument() throws {
        #expect(try matchingIDs(["$expr": ["$gt": ["$spent", "$budget"]]], monthlyBudget) == [1, 2, 5])
    }

    @Test func exprTruthiness() throws {
        #expect(try matchingIDs(["$expr": ["$subtract": ["$budget", 100]]], monthlyBudget) == [1, 4, 5])
        #expect(try matchingIDs(["$expr": "$missing"], monthlyBudget) == [])
        #expect(try matchingIDs(["$expr": ["$literal": []]], monthlyBudget) == [1, 2, 3, 4, 5])
    }
}
