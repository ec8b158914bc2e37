import BSON
import Testing

@testable import DocumentStore

@Suite struct ProjectionTests {
    let item: BSONDocument = [
        "_id": 1, "item": "journal", "status": "A",
        "size": ["h": 14, "w": 21, "uom": "cm"],
        "instock": [["warehouse": "A", "qty": 5], ["warehouse": "C", "qty": 15], "loose"],
    ]

    func project(_ specification: BSONDocument, _ document: BSONDocument, match: QueryMatch? = nil) throws
        -> BSONDocument
    {
        try Projection(specification).apply(to: document, match: match)
    }

    @Test func inclusionKeepsIdByDefaultAndDocumentOrder() throws {
        #expect(try project(["status": 1, "item": 1], item) == ["_id": 1, "item": "journal", "status": "A"])
        #expect(try project(["status": 1, "item": true, "_id": 0], item) == ["item": "journal", "status": "A"])
        #expect(try project(["_id": 1], item) == ["_id": 1])
    }

    @Test func exclusionDropsOnlyNamedFields() throws {
        #expect(
            try project(["status": 0, "instock": 0, "size": false], item) == ["_id": 1, "item": "journal"])
        #expect(try project(["_id": 0, "size": 0, "instock": 0, "item": 0], item) == ["status": "A"])
        #expect(try project([:], item) == item)
    }

    @Test func dottedPathsIntoEmbeddedDocuments() throws {
        #expect(try project(["size.uom": 1], item) == ["_id": 1, "size": ["uom": "cm"]])
        #expect(try project(["size": ["uom": 1]], item) == ["_id": 1, "size": ["uom": "cm"]])
        #expect(
            try project(["size.uom": 0, "instock": 0, "item": 0, "status": 0], item)
                == ["_id": 1, "size": ["h": 14, "w": 21]])
    }

    @Test func dottedPathsIntoArraysOfDocuments() throws {
        // Inclusion keeps the documents of the array (and drops scalars); exclusion keeps everything else.
        #expect(
            try project(["instock.qty": 1, "_id": 0], item) == ["instock": [["qty": 5], ["qty": 15]]])
        #expect(
            try project(["instock.qty": 0, "_id": 0, "size": 0, "item": 0, "status": 0], item)
                == ["instock": [["warehouse": "A"], ["warehouse": "C"], "loose"]])
        #expect(try project(["item.x": 1, "_id": 0], item) == [:])
    }

    @Test func sliceFromStartEndAndWithSkip() throws {
        let post: BSONDocument = ["_id": 1, "title": "t", "comments": [1, 2, 3, 4, 5]]
        #expect(try project(["comments": ["$slice": 2]], post) == ["_id": 1, "title": "t", "comments": [1, 2]])
        #expect(try project(["comments": ["$slice": -2]], post) == ["_id": 1, "title": "t", "comments": [4, 5]])
        #expect(
            try project(["comments": ["$slice": [1, 3]], "title": 0], post) == ["_id": 1, "comments": [2, 3, 4]])
        #expect(
            try project(["comments": ["$slice": [-2, 5]], "_id": 0, "title": 1], post) == [
                "title": "t", "comments": [4, 5],
            ])
        #expect(try project(["comments": ["$slice": [10, 1]]], post)["comments"] == [])
        #expect(try project(["title": ["$slice": 1]], post) == post)
        #expect(throws: StoreError.location(28724, "Second argument to $slice must be a positive number")) {
            try Projection(["comments": ["$slice": [1, 0]]])
        }
    }

    @Test func elemMatchReturnsTheFirstMatchingElementOnly() throws {
        let school: BSONDocument = [
            "_id": 1, "zipcode": "63109",
            "students": [
                ["name": "john", "school": 102, "age": 10],
                ["name": "jess", "school": 102, "age": 11],
                ["name": "jeff", "school": 108, "age": 15],
            ],
        ]
        #expect(
            try project(["students": ["$elemMatch": ["school": 102]]], school)
                == ["_id": 1, "students": [["name": "john", "school": 102, "age": 10]]])
        #expect(
            try project(["students": ["$elemMatch": ["school": 102, "age": ["$gt": 10]]], "zipcode": 1], school)
                == ["_id": 1, "zipcode": "63109", "students": [["name": "jess", "school": 102, "age": 11]]])
        #expect(try project(["students": ["$elemMatch": ["school": 999]]], school) == ["_id": 1])
    }

    @Test func positionalProjectionUsesTheQueryMatch() throws {
        let student: BSONDocument = ["_id": 1, "semester": 1, "grades": [70, 87, 90]]
        let match = try #require(QueryFilter(["grades": ["$gte": 85]]).match(student))
        #expect(try project(["grades.$": 1], student, match: match) == ["_id": 1, "grades": [87]])
        #expect(throws: StoreError.self) { try project(["grades.$": 1], student, match: QueryMatch()) }
    }

    @Test func mixingInclusionAndExclusionFails() {
        #expect(throws: StoreError.location(31254, "Cannot do exclusion on field status in inclusion projection")) {
            try Projection(["title": 1, "status": 0])
        }
        #expect(throws: StoreError.location(31253, "Cannot do inclusion on field title in exclusion projection")) {
            try Projection(["status": 0, "title": 1])
        }
        #expect(throws: StoreError.self) { try Projection(["size": 1, "size.uom": 1]) }
        #expect(throws: StoreError.self) { try Projection(["a.$": 1, "b.$": 1]) }
        #expect(throws: StoreError.self) { try Projection(["a": ["$meta": "textScore"]]) }
        #expect(throws: StoreError.location(31275, "Cannot use $elemMatch projection on a nested field.")) {
            try Projection(["a.b": ["$elemMatch": ["c": 1]]])
        }
        #expect(throws: StoreError.self) { try Projection(["a": [:]]) }
        #expect(throws: StoreError.self) { try Projection(["$a": 1]) }
    }
}

/// Computed fields run aggregation expressions, implemented on the `aggregation` branch.
@Suite struct ProjectionExpressionTests {
    @Test func computedFieldsFromExpressionsAndLiterals() throws {
        let order: BSONDocument = ["_id": 7, "price": 10, "tax": 2, "sku": "abc"]
        let projection = try Projection(["total": ["$add": ["$price", "$tax"]], "code": "$sku", "_id": 0])
        #expect(try projection.apply(to: order) == ["total": 12, "code": "abc"])
        #expect(
            try Projection(["price": 1, "kind": ["$literal": "book"]]).apply(to: order)
                == ["_id": 7, "price": 10, "kind": "book"])
    }

    @Test func expressionsCannotJoinExclusions() {
        #expect(throws: StoreError.location(31252, "Cannot use expression other than $meta in exclusion projection")) {
            try Projection(["price": 0, "total": ["$add": ["$price", 1]]])
        }
    }
}
