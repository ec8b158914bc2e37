import BSON
import DocumentStore
import Testing

@testable import Switchyard

@Suite struct SyntheticEventTests {
    let books = Namespace(database: "product", collection: "book")
    let dune: BSONDocument = ["_id": 7, "title": "Dune", "meta": ["pages": 412, "tags": ["sf"]]]

    @Test func anUpdateCarriesItsDescriptionAndTheImagesAsked() async throws {
        let event = try await SyntheticEvent(
            namespace: books,
            change: .update(before: dune, update: ["$set": ["meta.pages": 500], "$push": ["meta.tags": "classic"]]),
            fullDocument: true, fullDocumentBeforeChange: true
        ).generate()
        #expect(event.operationType == .update)
        #expect(event.namespace == books)
        #expect(event.documentKey == ["_id": 7])
        #expect(event.updateDescription?.updatedFields == ["meta.pages": 500, "meta.tags.1": "classic"])
        #expect(event.fullDocument == ["_id": 7, "title": "Dune", "meta": ["pages": 500, "tags": ["sf", "classic"]]])
        #expect(event.fullDocumentBeforeChange == dune)
        #expect(
            event.raw.keys == [
                "_id", "operationType", "clusterTime", "wallTime", "fullDocument", "ns", "documentKey",
                "updateDescription", "fullDocumentBeforeChange",
            ])
    }

    @Test func eachChangeProducesItsOperationType() async throws {
        let changes: [SyntheticEvent.Change] = [
            .insert(dune), .update(before: dune, update: ["$unset": ["meta": ""]]),
            .replace(before: dune, replacement: ["title": "Dune Messiah"]), .delete(dune),
        ]
        for change in changes {
            let event = try await SyntheticEvent(namespace: books, change: change).generate()
            #expect(event.operationType == change.operationType)
            #expect(event.documentKey == ["_id": 7])
            #expect(event.fullDocumentBeforeChange == nil)
        }
        let replaced = try await SyntheticEvent(namespace: books, change: changes[2]).generate()
        #expect(replaced.fullDocument == ["_id": 7, "title": "Dune Messiah"])
    }

    @Test func anInsertWithoutIdGetsOneFromTheStore() async throws {
        let event = try await SyntheticEvent(namespace: books, change: .insert(["title": "Dune"])).generate()
        let id = try #require(event.documentKey?["_id"])
        guard case .objectId = id else {
            Issue.record("expected an ObjectId, got \(id)")
            return
        }
        #expect(event.fullDocument == ["_id": id, "title": "Dune"])
    }

    @Test func changesThatEmitNothingOrAreInvalidFail() async {
        let cases: [(Namespace, SyntheticEvent.Change, String)] = [
            (
                books, .update(before: dune, update: ["$set": ["title": "Dune"]]),
                "the update leaves the document as it was, and an unchanged document emits no event"
            ),
            (
                books, .replace(before: dune, replacement: dune),
                "the replacement equals the document, and an unchanged document emits no event"
            ),
            (
                Namespace(database: "local", collection: "state"), .insert(dune),
                "writes to the 'local' database emit no change events"
            ),
            (
                books, .update(before: dune, update: ["$set": ["_id": 8]]),
                "Performing an update on the path '_id' would modify the immutable field '_id'"
            ),
        ]
        for (namespace, change, message) in cases {
            await #expect(throws: SyntheticEvent.Failure(message)) {
                try await SyntheticEvent(namespace: namespace, change: change).generate()
            }
        }
    }

    @Test func theUpdateBetweenTwoDocumentsSetsAndUnsetsTopLevelFields() {
        let after: BSONDocument = [
            "_id": 7, "title": "Dune Messiah", "meta": ["pages": 412, "tags": ["sf"]], "year": 1969,
        ]
        #expect(
            SyntheticEvent.update(from: dune, to: after) == ["$set": ["title": "Dune Messiah", "year": 1969]])
        #expect(SyntheticEvent.update(from: dune, to: ["_id": 7]) == ["$unset": ["title": "", "meta": ""]])
        #expect(SyntheticEvent.update(from: dune, to: dune) == nil)
    }
}
