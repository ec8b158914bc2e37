import BSON
import Testing

@testable import DocumentStore

/// Applies `update` to `document` the way the store does.
private func applying(
    _ update: BSONDocument, to document: BSONDocument, arrayFilters: [BSONDocument] = [],
    match: QueryMatch? = nil, isInsert: Bool = false, now: BSONDate? = nil
) throws(StoreError) -> BSONDocument {
    try UpdateSpecification(update, arrayFilters: arrayFilters)
        .apply(to: document, match: match, isInsert: isInsert, now: now)
}

/// The error compiling or applying `update` raises, or nil.
private func failure(
    _ update: BSONDocument, on document: BSONDocument = ["_id": 1], arrayFilters: [BSONDocument] = [],
    match: QueryMatch? = nil
) -> StoreError? {
    do {
        _ = try applying(update, to: document, arrayFilters: arrayFilters, match: match)
        return nil
    } catch {
        return error
    }
}

@Suite struct UpdateSetTests {
    @Test func setsExistingAndCreatesEmbeddedDocumentsForMissingPaths() throws {
        let result = try applying(
            ["$set": ["title": "Dune", "volumeInfo.title": "Dune", "volumeInfo.pages.count": 412]],
            to: ["_id": 1, "title": "Untitled"])
        #expect(result == ["_id": 1, "title": "Dune", "volumeInfo": ["pages": ["count": 412], "title": "Dune"]])
    }

    @Test func appendsNewFieldsInLexicographicOrderAcrossOperators() throws {
        let result = try applying(["$set": ["zeta": 1, "beta": 2], "$inc": ["alpha": 1]], to: ["_id": 1])
        #expect(result.keys == ["_id", "alpha", "beta", "zeta"])
    }

    @Test func visitsArrayIndexesInNumericOrder() throws {
        let result = try applying(["$set": ["a.10": "ten", "a.2": "two"]], to: ["_id": 1, "a": []])
        let expected: [BSON] = [.null, .null, "two", .null, .null, .null, .null, .null, .null, .null, "ten"]
        #expect(result["a"] == .array(expected))
    }

    @Test func padsArraysWithNullsUpToTheIndex() throws {
        let result = try applying(["$set": ["a.3": 4]], to: ["_id": 1, "a": [1]])
        #expect(result["a"] == [1, .null, .null, 4])
    }

    @Test func setsInsideArraysOfArrays() throws {
        let result = try applying(["$set": ["m.1.0": 9]], to: ["_id": 1, "m": [[1, 2], [3, 4]]])
        #expect(result["m"] == [[1, 2], [9, 4]])
    }

    @Test func setsFieldsOfDocumentsInsideArrays() throws {
        let result = try applying(["$set": ["items.1.qty": 5]], to: ["_id": 1, "items": [["qty": 1], ["qty": 2]]])
        #expect(result["items"] == [["qty": 1], ["qty": 5]])
    }

    @Test func cannotCreateAFieldInsideAScalar() {
        #expect(
            failure(["$set": ["a.b": 1]], on: ["_id": 1, "a": 1])
                == .pathNotViable("Cannot create field 'b' in element {a: 1}"))
        #expect(
            failure(["$set": ["a.b.c": 1]], on: ["_id": 1, "a": ["b": 5]])
                == .pathNotViable("Cannot create field 'c' in element {b: 5}"))
        #expect(
            failure(["$set": ["a.b": 1]], on: ["_id": 1, "a": .null])
                == .pathNotViable("Cannot create field 'b' in element {a: null}"))
    }

    @Test func cannotCreateANamedFieldInsideAnArray() {
        #expect(
            failure(["$set": ["a.x": 1]], on: ["_id": 1, "a": [1, 2]])
                == .pathNotViable("Cannot create field 'x' in element {a: [ 1, 2 ]}"))
    }

    @Test func settingTheSameValueChangesNothing() throws {
        let document: BSONDocument = ["_id": 1, "a": ["b": 1]]
        #expect(try applying(["$set": ["a.b": 1]], to: document) == document)
        // The same number of another type is a change.
        #expect(try applying(["$set": ["a.b": 1.0]], to: document) == ["_id": 1, "a": ["b": 1.0]])
    }

    @Test func emptyOperatorIsANoOp() throws {
        #expect(try applying(["$set": [:]], to: ["_id": 1, "a": 1]) == ["_id": 1, "a": 1])
    }

    @Test func setOnInsertAppliesOnlyWhenInserting() throws {
        let update: BSONDocument = ["$set": ["item": "apple"], "$setOnInsert": ["defaultQty": 100]]
        #expect(try applying(update, to: ["_id": 1]) == ["_id": 1, "item": "apple"])
        #expect(
            try applying(update, to: ["_id": 1], isInsert: true) == ["_id": 1, "defaultQty": 100, "item": "apple"])
    }
}

@Suite struct UpdateUnsetTests {
    @Test func removesFieldsAndNullsArrayElements() throws {
        let result = try applying(
            ["$unset": ["quantity": "", "instock": true, "tags.1": 1, "size.uom": 1]],
            to: ["_id": 1, "quantity": 5, "instock": true, "tags": ["a", "b", "c"], "size": ["h": 1, "uom": "cm"]])
        #expect(result == ["_id": 1, "tags": ["a", .null, "c"], "size": ["h": 1]])
    }

    @Test func missingAndNonViablePathsAreNoOps() throws {
        let document: BSONDocument = ["_id": 1, "a": 1, "b": .null]
        #expect(try applying(["$unset": ["x": 1, "a.b": 1, "b.c": 1, "y.z": 1]], to: document) == document)
    }
}

@Suite struct UpdateArithmeticTests {
    @Test func incrementsFromTheManualExample() throws {
        let result = try applying(
            ["$inc": ["quantity": -2, "metrics.orders": 1]],
            to: ["_id": 1, "sku": "abc123", "quantity": 10, "metrics": ["orders": 2, "ratings": 3.5]])
        #expect(result == ["_id": 1, "sku": "abc123", "quantity": 8, "metrics": ["orders": 3, "ratings": 3.5]])
    }

    @Test func incrementOfAMissingFieldCreatesIt() throws {
        #expect(try applying(["$inc": ["a.b": .int64(5)]], to: ["_id": 1]) == ["_id": 1, "a": ["b": .int64(5)]])
    }

    @Test func int32OverflowWidensToInt64() throws {
        let up = try applying(["$inc": ["n": 1]], to: ["_id": 1, "n": .int32(.max)])
        #expect(up["n"] == .int64(Int64(Int32.max) + 1))
        let down = try applying(["$inc": ["n": -1]], to: ["_id": 1, "n": .int32(.min)])
        #expect(down["n"] == .int64(Int64(Int32.min) - 1))
        let product = try applying(["$mul": ["n": .int32(2)]], to: ["_id": 1, "n": .int32(.max)])
        #expect(product["n"] == .int64(Int64(Int32.max) * 2))
    }

    @Test func mixedTypesPromote() throws {
        #expect(try applying(["$inc": ["n": .int64(1)]], to: ["n": .int32(1)])["n"] == .int64(2))
        #expect(try applying(["$inc": ["n": 0.5]], to: ["n": .int32(1)])["n"] == .double(1.5))
        #expect(try applying(["$inc": ["n": .int32(1)]], to: ["n": .int64(1)])["n"] == .int64(2))
        #expect(try applying(["$mul": ["n": .int64(2)]], to: ["n": .int32(5)])["n"] == .int64(10))
    }

    @Test func int64OverflowFails() {
        #expect(
            failure(["$inc": ["n": 1]], on: ["_id": "int64-max", "n": .int64(.max)])
                == .badValue(
                    "Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) for document {_id: \"int64-max\"}"
                ))
        #expect(
            failure(["$inc": ["n": .int64(.max)]], on: ["_id": 1, "n": .int32(42)])
                == .badValue("Failed to apply $inc operations to current value ((NumberInt)42) for document {_id: 1}"))
    }

    @Test func nonNumericFieldsAndArgumentsAreTypeMismatches() {
        #expect(
            failure(["$inc": ["x": 1]], on: ["_id": 1, "x": "a"])
                == .typeMismatch(
                    "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'x' of non-numeric type string"
                ))
        #expect(
            failure(["$mul": ["v.n": 2]], on: ["_id": 1, "v": ["n": .null]])
                == .typeMismatch(
                    "Cannot apply $mul to a value of non-numeric type. {_id: 1} has the field 'n' of non-numeric type null"
                ))
        #expect(
            failure(["$inc": ["x": "a"]]) == .typeMismatch("Cannot increment with non-numeric argument: {x: \"a\"}"))
        #expect(failure(["$mul": ["x": true]]) == .typeMismatch("Cannot multiply with non-numeric argument: {x: true}"))
    }

    @Test func decimalArithmeticIsRefused() {
        let decimalOne = BSON.decimal128(Decimal128(high: 0x3040_0000_0000_0000, low: 1))
        #expect(failure(["$inc": ["x": decimalOne]], on: ["_id": 1, "x": 1])?.code == .badValue)
        #expect(failure(["$inc": ["x": 1]], on: ["_id": 1, "x": decimalOne])?.code == .badValue)
    }

    @Test func multipliesFromTheManualExample() throws {
        let result = try applying(["$mul": ["price": 1.25, "qty": 2]], to: ["_id": 1, "price": 10.5, "qty": 25])
        #expect(result == ["_id": 1, "price": 13.125, "qty": 50])
    }

    @Test func multiplyingAMissingFieldSetsAZeroOfTheMultipliersType() throws {
        let result = try applying(["$mul": ["a": .int64(100), "b": 2.5, "c": 3]], to: ["_id": 1])
        #expect(result == ["_id": 1, "a": .int64(0), "b": 0.0, "c": 0])
    }
}

@Suite struct UpdateMinMaxTests {
    @Test func minAndMaxFromTheManualExample() throws {
        let document: BSONDocument = ["_id": 1, "highScore": 800, "lowScore": 200]
        #expect(try applying(["$min": ["lowScore": 150]], to: document)["lowScore"] == 150)
        #expect(try applying(["$min": ["lowScore": 250]], to: document) == document)
        #expect(try applying(["$max": ["highScore": 950]], to: document)["highScore"] == 950)
        #expect(try applying(["$max": ["highScore": 700]], to: document) == document)
    }

    @Test func compareAcrossTypesInBSONOrder() throws {
        #expect(try applying(["$min": ["x": 1.5]], to: ["x": 2])["x"] == .double(1.5))
        // Strings sort after numbers, so a string is a larger maximum.
        #expect(try applying(["$max": ["x": "a"]], to: ["x": 99])["x"] == "a")
        #expect(try applying(["$min": ["x": .null]], to: ["x": 1])["x"] == .null)
        let early = BSON.datetime(BSONDate(millisecondsSinceEpoch: 1_000))
        let late = BSON.datetime(BSONDate(millisecondsSinceEpoch: 2_000))
        #expect(try applying(["$max": ["d": late]], to: ["d": early])["d"] == late)
    }

    @Test func missingFieldsAreSet() throws {
        #expect(try applying(["$min": ["x": 5]], to: ["_id": 1]) == ["_id": 1, "x": 5])
    }
}

@Suite struct UpdateRenameTests {
    @Test func renamesTopLevelAndIntoEmbeddedDocuments() throws {
        let result = try applying(
            ["$rename": ["nmae": "name", "cell": "contact.mobile"]],
            to: ["_id": 1, "nmae": "Nick", "cell": "555", "contact": ["email": "n@x"]])
        #expect(result == ["_id": 1, "contact": ["email": "n@x", "mobile": "555"], "name": "Nick"])
    }

    @Test func renamingOntoAnExistingFieldReplacesIt() throws {
        let result = try applying(["$rename": ["a": "b"]], to: ["_id": 1, "b": 2, "a": 1])
        #expect(result == ["_id": 1, "b": 1])
    }

    @Test func missingSourceIsANoOp() throws {
        #expect(try applying(["$rename": ["x": "y"]], to: ["_id": 1, "a": 1]) == ["_id": 1, "a": 1])
    }

    @Test func failsIntoAndOutOfArrays() {
        #expect(
            failure(["$rename": ["a.0": "b"]], on: ["_id": 1, "a": [1]])
                == .badValue(
                    "The source field cannot be an array element, 'a.0' in doc with _id: 1 has an array field called 'a'"
                ))
        #expect(
            failure(["$rename": ["b": "a.x"]], on: ["_id": 1, "a": [1], "b": 2])
                == .badValue(
                    "The destination field cannot be an array element, 'a.x' in doc with _id: 1 has an array field called 'a'"
                ))
    }

    @Test func rejectsBadTargets() {
        #expect(failure(["$rename": ["a": 1]]) == .badValue("The 'to' field for $rename must be a string: a: 1"))
        #expect(
            failure(["$rename": ["a": "a"]])
                == .badValue("The source and target field for $rename must differ: a: \"a\""))
        #expect(
            failure(["$rename": ["a": "a.b"]])
                == .badValue("The source and target field for $rename must not be on the same path: a: \"a.b\""))
        #expect(failure(["$rename": ["a.$": "b"]]) == .badValue("The source field for $rename may not be dynamic: a.$"))
    }
}

@Suite struct UpdateCurrentDateTests {
    @Test func writesTheDateOrATimestamp() throws {
        let now = BSONDate(millisecondsSinceEpoch: 1_700_000_000_123)
        let result = try applying(
            [
                "$currentDate": [
                    "lastModified": true, "cancellation.date": ["$type": "timestamp"], "seen": ["$type": "date"],
                ]
            ],
            to: ["_id": 1], now: now)
        #expect(
            result == [
                "_id": 1, "cancellation": ["date": .timestamp(BSONTimestamp(time: 1_700_000_000, increment: 1))],
                "lastModified": .datetime(now), "seen": .datetime(now),
            ])
    }

    @Test func rejectsOtherTypes() {
        #expect(failure(["$currentDate": ["a": ["$type": "string"]]])?.code == .badValue)
        #expect(failure(["$currentDate": ["a": 1]])?.code == .badValue)
    }
}

@Suite struct UpdatePushTests {
    @Test func appendsAndCreatesArrays() throws {
        let result = try applying(["$push": ["scores": 89, "tags": "new"]], to: ["_id": 1, "scores": [44, 78]])
        #expect(result == ["_id": 1, "scores": [44, 78, 89], "tags": ["new"]])
    }

    @Test func pushesAnArrayArgumentAsOneElement() throws {
        let result = try applying(["$push": ["m": [1, 2]]], to: ["_id": 1, "m": [[0]]])
        #expect(result["m"] == [[0], [1, 2]])
    }

    @Test func eachAppendsEveryValue() throws {
        let result = try applying(["$push": ["scores": ["$each": [90, 92, 85]]]], to: ["_id": 1, "scores": [44]])
        #expect(result["scores"] == [44, 90, 92, 85])
    }

    @Test func positionInsertsFromTheFrontOrTheEnd() throws {
        let front = try applying(
            ["$push": ["scores": ["$each": [50, 60, 70], "$position": 0]]], to: ["_id": 1, "scores": [100]])
        #expect(front["scores"] == [50, 60, 70, 100])
        let fromEnd = try applying(
            ["$push": ["scores": ["$each": [20, 30], "$position": -2]]], to: ["_id": 1, "scores": [50, 60, 70, 100]])
        #expect(fromEnd["scores"] == [50, 60, 20, 30, 70, 100])
        let beyond = try applying(["$push": ["s": ["$each": [9], "$position": 10]]], to: ["s": [1]])
        #expect(beyond["s"] == [1, 9])
        let beforeStart = try applying(["$push": ["s": ["$each": [9], "$position": -10]]], to: ["s": [1]])
        #expect(beforeStart["s"] == [9, 1])
    }

    @Test func sortsWholeElementsThenSlices() throws {
        let sorted = try applying(
            ["$push": ["tests": ["$each": [40, 60], "$sort": 1]]], to: ["_id": 2, "tests": [89, 70, 89, 50]])
        #expect(sorted["tests"] == [40, 50, 60, 70, 89, 89])
        let descending = try applying(
            ["$push": ["tests": ["$each": [], "$sort": -1, "$slice": 3]]], to: ["tests": [1, 7, 3, 5]])
        #expect(descending["tests"] == [7, 5, 3])
        let lastTwo = try applying(["$push": ["s": ["$each": [4, 5], "$slice": -2]]], to: ["s": [1, 2, 3]])
        #expect(lastTwo["s"] == [4, 5])
        let emptied = try applying(["$push": ["s": ["$each": [4], "$slice": 0]]], to: ["s": [1, 2]])
        #expect(emptied["s"] == [])
    }

    @Test func positionSortAndSliceTogether() throws {
        // $position places the values, then $sort reorders everything, then $slice keeps the front.
        let result = try applying(
            ["$push": ["s": ["$each": [0, 9], "$position": 1, "$sort": -1, "$slice": 2]]], to: ["s": [5, 3]])
        #expect(result["s"] == [9, 5])
    }

    @Test func sortsDocumentsByAField() throws {
        let result = try applying(
            [
                "$push": [
                    "quizzes": [
                        "$each": [["wk": 5, "score": 8], ["wk": 6, "score": 7], ["wk": 7, "score": 6]],
                        "$sort": ["score": -1], "$slice": 3,
                    ]
                ]
            ],
            to: ["_id": 5, "quizzes": [["wk": 1, "score": 10], ["wk": 2, "score": 8], ["wk": 3, "score": 5]]])
        // Equal scores keep their order: the existing wk 2 before the pushed wk 5.
        #expect(result["quizzes"] == [["wk": 1, "score": 10], ["wk": 2, "score": 8], ["wk": 5, "score": 8]])
    }

    @Test func rejectsNonArraysAndBadClauses() {
        #expect(
            failure(["$push": ["x": 1]], on: ["_id": 1, "x": 5])
                == .badValue("The field 'x' must be an array but is of type int in document {_id: 1}"))
        #expect(
            failure(["$push": ["x": ["$each": [1], "$foo": 1]]]) == .badValue("Unrecognized clause in $push: $foo"))
        #expect(
            failure(["$push": ["x": ["$each": 1]]])
                == .badValue("The argument to $each in $push must be an array but it was of type: int"))
        #expect(
            failure(["$push": ["x": ["$each": [1], "$sort": 2]]])
                == .badValue("The $sort element value must be either 1 or -1"))
        #expect(
            failure(["$push": ["x": ["$each": [1], "$slice": "a"]]])
                == .badValue("The value for $slice must be an integer value but was given type: string"))
    }
}

@Suite struct UpdateAddToSetTests {
    @Test func addsOnlyMissingValues() throws {
        let document: BSONDocument = ["_id": 1, "tags": ["electronics", "camera"]]
        #expect(try applying(["$addToSet": ["tags": "camera"]], to: document) == document)
        #expect(
            try applying(["$addToSet": ["tags": "accessories"]], to: document)["tags"]
                == ["electronics", "camera", "accessories"])
    }

    @Test func addsAnArrayArgumentAsOneElement() throws {
        let result = try applying(["$addToSet": ["letters": ["c", "d"]]], to: ["_id": 1, "letters": ["a", "b"]])
        #expect(result["letters"] == ["a", "b", ["c", "d"]])
    }

    @Test func eachAddsEveryNewValueOnce() throws {
        let result = try applying(
            ["$addToSet": ["tags": ["$each": ["camera", "electronics", "accessories", "accessories"]]]],
            to: ["_id": 2, "tags": ["electronics"]])
        #expect(result["tags"] == ["electronics", "camera", "accessories"])
    }

    @Test func numbersCompareByValueAcrossTypes() throws {
        let document: BSONDocument = ["_id": 1, "n": [1, 2]]
        #expect(try applying(["$addToSet": ["n": 1.0]], to: document) == document)
        #expect(try applying(["$addToSet": ["n": .int64(2)]], to: document) == document)
    }

    @Test func documentsWithFieldsInAnotherOrderAreDifferent() throws {
        let result = try applying(["$addToSet": ["d": ["b": 2, "a": 1]]], to: ["_id": 1, "d": [["a": 1, "b": 2]]])
        #expect(result["d"] == [["a": 1, "b": 2], ["b": 2, "a": 1]])
        let same = try applying(["$addToSet": ["d": ["a": 1, "b": 2]]], to: ["_id": 1, "d": [["a": 1, "b": 2]]])
        #expect(same["d"] == [["a": 1, "b": 2]])
    }

    @Test func rejectsNonArrays() {
        #expect(
            failure(["$addToSet": ["x": 1]], on: ["_id": 1, "x": "s"])
                == .badValue("Cannot apply $addToSet to non-array field. Field named 'x' has non-array type string"))
        #expect(
            failure(["$addToSet": ["x": ["$each": 1]]])
                == .typeMismatch("The argument to $each in $addToSet must be an array but it was of type int"))
    }
}

@Suite struct UpdatePullTests {
    @Test func pullsEqualValuesAcrossNumericTypes() throws {
        let result = try applying(
            ["$pull": ["vegetables": "carrots", "n": 1.0]],
            to: ["_id": 1, "vegetables": ["carrots", "celery", "squash", "carrots"], "n": [1, .int64(1), 2]])
        #expect(result == ["_id": 1, "vegetables": ["celery", "squash"], "n": [2]])
    }

    @Test func pullsWholeArraysByEquality() throws {
        let result = try applying(["$pull": ["m": [1, 2]]], to: ["m": [[1, 2], [2, 1], 1, 2]])
        #expect(result["m"] == [[2, 1], 1, 2])
    }

    @Test func pullsByAConditionOnEachElement() throws {
        let result = try applying(["$pull": ["votes": ["$gte": 6]]], to: ["_id": 1, "votes": [3, 5, 6, 7, 7, 8]])
        #expect(result["votes"] == [3, 5])
        let fruits = try applying(
            ["$pull": ["fruits": ["$in": ["apples", "oranges"]]]],
            to: ["fruits": ["apples", "pears", "oranges", "grapes"]])
        #expect(fruits["fruits"] == ["pears", "grapes"])
    }

    @Test func pullsDocumentsMatchingAQuery() throws {
        let result = try applying(
            ["$pull": ["results": ["score": 8, "item": "B"]]],
            to: [
                "_id": 1,
                "results": [
                    ["item": "A", "score": 5], ["item": "B", "score": 8, "comment": "x"], ["score": 8, "item": "B"],
                ],
            ])
        #expect(result["results"] == [["item": "A", "score": 5]])
    }

    @Test func missingIsANoOpButScalarsFail() throws {
        #expect(try applying(["$pull": ["x": 1]], to: ["_id": 1]) == ["_id": 1])
        #expect(
            failure(["$pull": ["x": 1]], on: ["_id": 1, "x": 1]) == .badValue("Cannot apply $pull to a non-array value")
        )
        #expect(
            failure(["$pull": ["a.b.c": 1]], on: ["_id": 1, "a": 5])
                == .pathNotViable("Cannot use the part (b) of (a.b.c) to traverse the element ({a: 5})"))
    }

    @Test func pullAllRemovesEveryListedValue() throws {
        let result = try applying(["$pullAll": ["scores": [0, 5]]], to: ["_id": 1, "scores": [0, 2, 5, 5, 1, 0]])
        #expect(result["scores"] == [2, 1])
        #expect(failure(["$pullAll": ["x": 1]]) == .badValue("$pullAll requires an array argument but was given a int"))
    }
}

@Suite struct UpdatePopTests {
    @Test func removesTheFirstOrLastElement() throws {
        let document: BSONDocument = ["_id": 1, "scores": [8, 9, 10]]
        #expect(try applying(["$pop": ["scores": -1]], to: document)["scores"] == [9, 10])
        #expect(try applying(["$pop": ["scores": 1]], to: document)["scores"] == [8, 9])
        #expect(
            try applying(["$pop": ["scores": 1, "none": 1]], to: ["_id": 1, "scores": []]) == ["_id": 1, "scores": []])
    }

    @Test func rejectsOtherArgumentsAndNonArrays() {
        #expect(failure(["$pop": ["a": 2]]) == .failedToParse("$pop expects 1 or -1, found: 2"))
        #expect(
            failure(["$pop": ["a": 1]], on: ["_id": 1, "a": "s"])
                == .typeMismatch("Path 'a' contains an element of non-array type 'string'"))
    }
}

@Suite struct UpdatePositionalTests {
    @Test func positionalUpdatesTheMatchedElement() throws {
        let result = try applying(
            ["$set": ["grades.$": 82]], to: ["_id": 1, "grades": [85, 80, 80]], match: QueryMatch(arrayPosition: 1))
        #expect(result["grades"] == [85, 82, 80])
        let nested = try applying(
            ["$inc": ["grades.$.std": -2]],
            to: ["_id": 4, "grades": [["grade": 80, "std": 8], ["grade": 85, "std": 5]]],
            match: QueryMatch(arrayPosition: 1))
        #expect(nested["grades"] == [["grade": 80, "std": 8], ["grade": 85, "std": 3]])
    }

    @Test func positionalWithoutAMatchFails() {
        #expect(
            failure(["$set": ["grades.$": 1]], on: ["_id": 1, "grades": [1]])
                == .badValue("The positional operator did not find the match needed from the query."))
    }

    @Test func positionalAndTheSameIndexConflictAtRunTime() {
        #expect(
            failure(["$set": ["a.$": 1, "a.0": 2]], on: ["_id": 1, "a": [0]], match: QueryMatch(arrayPosition: 0))
                == .conflictingUpdateOperators("Update created a conflict at 'a.0'"))
    }

    @Test func allPositionalUpdatesEveryElement() throws {
        let result = try applying(["$inc": ["grades.$[]": 10]], to: ["_id": 1, "grades": [85, 82, 80]])
        #expect(result["grades"] == [95, 92, 90])
        let nested = try applying(
            ["$set": ["rows.$[].$[]": 0]], to: ["rows": [[1, 2], [3]]])
        #expect(nested["rows"] == [[0, 0], [0]])
    }

    @Test func allPositionalNeedsAnExistingArray() {
        #expect(
            failure(["$set": ["a.b.$[]": 1]], on: ["_id": 1])
                == .badValue("The path 'a.b' must exist in the document in order to apply array updates."))
        #expect(
            failure(["$set": ["a.$[]": 1]], on: ["_id": 1, "a": 5])
                == .badValue("Cannot apply array updates to non-array element a: 5"))
    }

    @Test func filteredPositionalUpdatesMatchingElements() throws {
        let result = try applying(
            ["$set": ["grades.$[element]": 100]], to: ["_id": 1, "grades": [95, 102, 90, 150]],
            arrayFilters: [["element": ["$gte": 100]]])
        #expect(result["grades"] == [95, 100, 90, 100])
    }

    @Test func filteredPositionalMatchesFieldsOfElementDocuments() throws {
        let result = try applying(
            ["$set": ["grades.$[elem].mean": 100]],
            to: [
                "_id": 1,
                "grades": [["grade": 80, "mean": 75], ["grade": 85, "mean": 90], ["grade": 85, "mean": 85]],
            ],
            arrayFilters: [["elem.grade": ["$gte": 85]]])
        #expect(
            result["grades"] == [["grade": 80, "mean": 75], ["grade": 85, "mean": 100], ["grade": 85, "mean": 100]])
    }

    @Test func filteredPositionalOnNestedArrays() throws {
        let result = try applying(
            ["$inc": ["grades.$[t].questions.$[score]": 2]],
            to: [
                "_id": 1,
                "grades": [["type": "quiz", "questions": [10, 8, 5]], ["type": "exam", "questions": [5, 9, 8]]],
            ],
            arrayFilters: [["t.type": "quiz"], ["score": ["$gte": 8]]])
        #expect(
            result["grades"] == [
                ["type": "quiz", "questions": [12, 10, 5]], ["type": "exam", "questions": [5, 9, 8]],
            ])
    }

    @Test func allAndFilteredChildrenMergeOnOneElement() throws {
        let result = try applying(
            ["$set": ["a.$[].seen": true, "a.$[big].flag": "big"]], to: ["_id": 1, "a": [["n": 1], ["n": 9]]],
            arrayFilters: [["big.n": ["$gt": 5]]])
        #expect(result["a"] == [["n": 1, "seen": true], ["n": 9, "flag": "big", "seen": true]])
    }

    @Test func allAndFilteredOnTheSameElementConflict() {
        #expect(
            failure(
                ["$set": ["a.$[]": 1, "a.$[x]": 2]], on: ["_id": 1, "a": [5]], arrayFilters: [["x": ["$gt": 1]]])
                == .conflictingUpdateOperators("Update created a conflict at 'a.0'"))
    }

    @Test func arrayFiltersMustMatchTheIdentifiersUsed() {
        #expect(
            failure(["$set": ["a.$[x]": 1]])
                == .badValue("No array filter found for identifier 'x' in path 'a.$[x]'"))
        #expect(
            failure(["$set": ["a": 1]], arrayFilters: [["x": 1]])
                == .failedToParse("The array filter for identifier 'x' was not used in the update { $set: { a: 1 } }"))
        #expect(
            failure(["$set": ["a.$[X]": 1]], arrayFilters: [["X": 1]])
                == .badValue(
                    "Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found 'X'"
                ))
        #expect(
            failure(["$set": ["a.$[x]": 1]], arrayFilters: [["x": 1, "y": 2]])
                == .failedToParse(
                    "Error parsing array filter :: caused by :: Expected a single top-level field name, found 'x' and 'y'"
                ))
    }
}

@Suite struct UpdateCompileTests {
    @Test func conflictingPathsAreRejectedWithMongoDBsMessage() {
        #expect(
            failure(["$set": ["a": 1], "$inc": ["a.b": 1]])
                == .conflictingUpdateOperators("Updating the path 'a.b' would create a conflict at 'a'"))
        #expect(
            failure(["$set": ["a.b": 2], "$inc": ["a": 1]])
                == .conflictingUpdateOperators("Updating the path 'a' would create a conflict at 'a'"))
        #expect(
            failure(["$set": ["x": 1], "$unset": ["x": ""]])
                == .conflictingUpdateOperators("Updating the path 'x' would create a conflict at 'x'"))
        #expect(
            failure(["$rename": ["a": "b"], "$set": ["b": 9]])
                == .conflictingUpdateOperators("Updating the path 'b' would create a conflict at 'b'"))
        #expect(
            failure(["$rename": ["a": "c"], "$set": ["a": 5]])
                == .conflictingUpdateOperators("Updating the path 'a' would create a conflict at 'a'"))
        #expect(
            failure(["$set": ["a.$[]": 1, "a.0": 1]])
                == .conflictingUpdateOperators("Updating the path 'a.0' would create a conflict at 'a'"))
    }

    @Test func siblingPathsDoNotConflict() throws {
        let result = try applying(["$set": ["a.b": 2], "$inc": ["a.c": 1]], to: ["_id": 1, "a": ["b": 1, "c": 1]])
        #expect(result == ["_id": 1, "a": ["b": 2, "c": 2]])
    }

    @Test func unknownOperatorsAndBadOperandsAreRejected() {
        #expect(
            failure(["$foo": ["a": 1]])
                == .failedToParse(
                    "Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified as an array"
                ))
        #expect(
            failure(["$set": ["a": 1], "b": 2])
                == .failedToParse(
                    "Unknown modifier: b. Expected a valid update modifier or pipeline-style update specified as an array"
                ))
        #expect(
            failure(["$set": 1])
                == .failedToParse(
                    "Modifiers operate on fields but we found type int instead. For example: {$mod: {<field>: ...}} not {$set: 1}"
                ))
    }

    @Test func hugePathsAndIndexesAreRefused() {
        let deep = Array(repeating: "a", count: 10_000).joined(separator: ".")
        #expect(failure(["$set": [deep: 1]])?.code == .badValue)
        #expect(failure(["$set": ["a.99999999": 1]], on: ["_id": 1, "a": []])?.codeName == "CannotBackfillArray")
    }

    @Test func badPathsAreRejected() {
        #expect(failure(["$set": ["": 1]])?.codeName == "EmptyFieldName")
        #expect(
            failure(["$set": ["a..b": 1]])?.message
                == "The update path 'a..b' contains an empty field name, which is not allowed.")
        #expect(failure(["$set": ["a.$foo": 1]])?.code == .dollarPrefixedFieldName)
        #expect(
            failure(["$set": ["a.$.b.$": 1]])
                == .badValue("Too many positional (i.e. '$') elements found in path 'a.$.b.$'"))
    }
}

@Suite struct UpdateIDTests {
    @Test func idIsImmutable() {
        let expected = StoreError.immutableField(
            "Performing an update on the path '_id' would modify the immutable field '_id'")
        #expect(failure(["$set": ["_id": 2]]) == expected)
        #expect(failure(["$unset": ["_id": ""]]) == expected)
        #expect(failure(["$rename": ["_id": "id"]]) == expected)
        #expect(
            failure(["$set": ["_id.a": 2]], on: ["_id": ["a": 1]])
                == .immutableField("Performing an update on the path '_id.a' would modify the immutable field '_id'"))
    }

    @Test func settingTheSameIDIsAllowed() throws {
        #expect(try applying(["$set": ["_id": 1, "a": 1]], to: ["_id": 1]) == ["_id": 1, "a": 1])
    }

    @Test func anInsertMaySetAMissingID() throws {
        #expect(try applying(["$setOnInsert": ["_id": 7]], to: ["x": 1], isInsert: true) == ["x": 1, "_id": 7])
    }
}

@Suite struct UpdateReplacementTests {
    @Test func replacementKeepsTheID() throws {
        let specification = try UpdateSpecification(["title": "New", "year": 2024])
        #expect(specification.isReplacement)
        let result = try specification.apply(to: ["_id": 1, "title": "Old", "pages": 10])
        #expect(result == ["_id": 1, "title": "New", "year": 2024])
        #expect(try UpdateSpecification(["$set": ["a": 1]]).isReplacement == false)
    }

    @Test func replacementWithTheSameIDIsAllowedAndAnotherIDIsNot() throws {
        #expect(try applying(["a": 1, "_id": 1], to: ["_id": 1]) == ["a": 1, "_id": 1])
        #expect(
            failure(["_id": 2, "a": 1])
                == .immutableField(
                    "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 2"))
    }

    @Test func replacementsCannotHaveDollarPrefixedFields() {
        #expect(failure(["a": 1, "$set": ["b": 1]])?.codeName == "DollarPrefixedFieldName")
        #expect(throws: Never.self) { try UpdateSpecification.validateReplacement(["a.b": 1, "c": ["$d": 1]]) }
        #expect(failure(["a": 1], arrayFilters: [["x": 1]])?.code == .failedToParse)
    }
}
