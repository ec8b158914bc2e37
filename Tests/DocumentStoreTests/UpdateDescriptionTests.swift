import BSON
import Testing

@testable import DocumentStore

/// The description of what `update` does to `document`, as a change event reports it.
private func describing(_ update: BSONDocument, on document: BSONDocument) throws -> UpdateDescription {
    let after = try UpdateSpecification(update).apply(to: document)
    return UpdateDescription(from: document, to: after)
}

@Suite struct UpdateDescriptionTests {
    let book: BSONDocument = [
        "_id": 1, "volumeInfo": ["title": "Dune", "authors": ["Frank Herbert"]], "tokens": ["a", "b", "c"],
    ]

    @Test func nestedSetIsReportedAtItsDottedPath() throws {
        let description = try describing(["$set": ["volumeInfo.title": "Dune Messiah"]], on: book)
        #expect(description == UpdateDescription(updatedFields: ["volumeInfo.title": "Dune Messiah"]))
    }

    @Test func pushIsReportedPerAppendedIndex() throws {
        let description = try describing(["$push": ["tokens": ["$each": ["d", "e"]]]], on: book)
        #expect(description == UpdateDescription(updatedFields: ["tokens.3": "d", "tokens.4": "e"]))
    }

    @Test func anArrayThatGrewByMoreThanItKeptIsReportedWhole() {
        let padded = UpdateDescription(from: ["t": [1]], to: ["t": [1, .null, .null, 4]])
        #expect(padded == UpdateDescription(updatedFields: ["t": [1, .null, .null, 4]]))
        #expect(UpdateDescription(from: ["t": []], to: ["t": [1]]) == UpdateDescription(updatedFields: ["t.0": 1]))
    }

    @Test func pullingTheLastElementIsATruncation() throws {
        let description = try describing(["$pull": ["tokens": "c"]], on: book)
        #expect(description == UpdateDescription(truncatedArrays: [.init(field: "tokens", newSize: 2)]))
    }

    @Test func truncationAlsoReportsChangedElementsBeforeTheCut() {
        let description = UpdateDescription(from: ["t": [1, 2, 3, 4, 5]], to: ["t": [1, 9, 3]])
        #expect(
            description
                == UpdateDescription(updatedFields: ["t.1": 9], truncatedArrays: [.init(field: "t", newSize: 3)]))
    }

    @Test func shiftingMostElementsReportsTheWholeArray() throws {
        let description = try describing(["$pull": ["tokens": "a"]], on: book)
        #expect(description == UpdateDescription(updatedFields: ["tokens": ["b", "c"]]))
    }

    @Test func unsetIsReportedInRemovedFields() throws {
        let description = try describing(["$unset": ["tokens": "", "volumeInfo.authors": ""]], on: book)
        #expect(description == UpdateDescription(removedFields: ["volumeInfo.authors", "tokens"]))
    }

    @Test func newFieldsAndTypeChangesAreReportedWhole() throws {
        let description = try describing(
            ["$set": ["rating": ["stars": 5], "volumeInfo.title": 7]], on: book)
        #expect(description == UpdateDescription(updatedFields: ["volumeInfo.title": 7, "rating": ["stars": 5]]))
        let widened = UpdateDescription(from: ["_id": 1, "n": .int32(1)], to: ["_id": 1, "n": .int64(1)])
        #expect(widened.updatedFields == ["n": .int64(1)])
    }

    @Test func elementsAreDescribedInsideArrays() {
        let description = UpdateDescription(
            from: ["items": [["qty": 1], ["qty": 2, "sku": "x"], ["qty": 3]], "m": [[1, 2], [3, 4]]],
            to: ["items": [["qty": 1], ["qty": 5], ["qty": 3]], "m": [[1, 2], [3, 9]]])
        #expect(
            description
                == UpdateDescription(updatedFields: ["items.1.qty": 5, "m.1.1": 9], removedFields: ["items.1.sku"]))
    }

    @Test func reorderedEmbeddedDocumentsAreReportedWhole() {
        let description = UpdateDescription(from: ["d": ["a": 1, "b": 2]], to: ["d": ["b": 2, "a": 1]])
        #expect(description.updatedFields == ["d": ["b": 2, "a": 1]])
    }

    @Test func identicalImagesDescribeNothing() {
        #expect(UpdateDescription(from: book, to: book) == UpdateDescription())
    }

    @Test func rendersAsAChangeEventField() {
        let description = UpdateDescription(
            updatedFields: ["a": 1], removedFields: ["b"], truncatedArrays: [.init(field: "c", newSize: 0)])
        #expect(
            description.document == [
                "updatedFields": ["a": 1], "removedFields": ["b"],
                "truncatedArrays": [["field": "c", "newSize": .int32(0)]],
            ])
    }
}
