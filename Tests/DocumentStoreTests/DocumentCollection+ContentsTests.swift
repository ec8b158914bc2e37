import BSON
import Foundation
import Testing

@testable import DocumentStore

@Suite struct DocumentCollectionContentsTests {
    @Test(arguments: EngineKind.allCases) func replacesDocumentsAndIndexesKeepingOptions(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            try await store.database("app").createCollection(
                "books", options: CreateCollectionOptions(changeStreamPreAndPostImages: true))
            let books = store.database("app").collection("books")
            try await books.insertMany([["_id": 1, "isbn": "a"], ["_id": 2, "isbn": "b"]])
            try await books.createIndex(["isbn": 1], unique: true)
            let stored = try await books.replaceContents(
                [["_id": 3, "title": "Dune"], ["title": "no id yet"]],
                indexes: [
                    ["v": 2, "key": ["_id": 1], "name": "_id_"],
                    ["key": ["title": 1], "name": "byTitle", "unique": true],
                ], changeLogged: false)
            #expect(stored == 2)
            let documents = try await books.find().toArray()
            #expect(documents.count == 2 && documents.allSatisfy { $0["isbn"] == nil })
            #expect(documents.contains { $0["_id"]?.objectIdValue != nil && $0.keys.first == "_id" })
            #expect(try await books.listIndexes().map { $0["name"] } == ["_id_", "byTitle"])
            #expect(try await books.explain(["title": "Dune"]).stage == "IXSCAN")
            // The collection's options survive: its updates still carry pre-images.
            let stream = try await books.watch(options: ChangeStreamOptions(fullDocumentBeforeChange: .required))
            try await books.updateOne(["_id": 3], ["$set": ["year": 1965]])
            let event = try #require(try await next(1, from: stream).first)
            #expect(event.fullDocumentBeforeChange == ["_id": 3, "title": "Dune"])
        }
    }

    @Test(arguments: EngineKind.allCases) func aRefusedDocumentChangesNothing(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1, "isbn": "a"])
            try await books.createIndex(["isbn": 1])
            let attempts: [(documents: [BSONDocument], indexes: [BSONDocument], position: Int, code: StoreError.Code)] =
                [
                    ([["_id": 2], ["_id": 3], ["_id": 2]], [], 2, .duplicateKey),
                    (
                        [["_id": 2, "isbn": "x"], ["_id": 3, "isbn": "x"]], [["key": ["isbn": 1], "unique": true]], 1,
                        .duplicateKey
                    ),
                    ([["_id": 2], ["_id": [1, 2]]], [], 1, 53),
                ]
            for attempt in attempts {
                do {
                    try await books.replaceContents(attempt.documents, indexes: attempt.indexes, changeLogged: true)
                    Issue.record("\(attempt.documents) was stored")
                } catch let error as BulkWriteError {
                    #expect(error.writeErrors.map(\.index) == [attempt.position])
                    #expect(error.writeErrors.map(\.code) == [attempt.code])
                }
                #expect(try await books.find().toArray() == [["_id": 1, "isbn": "a"]])
                #expect(try await books.listIndexes().map { $0["name"] } == ["_id_", "isbn_1"])
            }
            await expectStoreError(67) {
                try await books.replaceContents([], indexes: [["key": ["isbn": "up"]]], changeLogged: false)
            }
            await expectStoreError(73) {
                try await store.database("app").collection("system.x").replaceContents(
                    [], indexes: [], changeLogged: false)
            }
            #expect(try await books.countDocuments() == 1)
        }
    }

    @Test(arguments: EngineKind.allCases) func onlyALoggedReplacementIsSeenByChangeStreams(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1])
            let stream = try await store.watch()
            try await books.replaceContents([["_id": 2]], indexes: [], changeLogged: false)
            try await books.replaceContents([["_id": 3]], indexes: [], changeLogged: true)
            let events = try await next(2, from: stream)
            #expect(events.map(\.operationType) == [.delete, .insert])
            #expect(events.map { $0.documentKey } == [["_id": 2], ["_id": 3]])
            #expect(events.last?.fullDocument == ["_id": 3])
        }
    }
}
