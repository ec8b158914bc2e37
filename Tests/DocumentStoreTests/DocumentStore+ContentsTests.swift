import BSON
import Foundation
import Testing

@testable import DocumentStore

@Suite struct DocumentStoreContentsTests {
    let books = Namespace(database: "app", collection: "books")
    let users = Namespace(database: "app", collection: "users")

    @Test(arguments: EngineKind.allCases) func aRefusalInAnyCollectionChangesNoCollection(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            try await store.database("app").collection("books").insertOne(["_id": 0])
            try await store.database("app").collection("users").insertOne(["_id": "u0"])
            let stream = try await store.watch()
            do throws(ContentsReplacementError) {
                try await store.replaceContents(
                    [
                        CollectionContents(namespace: books, documents: [["_id": 1]]),
                        CollectionContents(namespace: users, documents: [["_id": "u1"], ["_id": "u1"]]),
                    ], changeLogged: true)
                Issue.record("a duplicate _id was stored")
            } catch {
                #expect(error.collection == 1 && error.document == 1 && error.error.code == .duplicateKey, "\(error)")
            }
            #expect(try await store.database("app").collection("books").find().toArray() == [["_id": 0]])
            #expect(try await store.database("app").collection("users").find().toArray() == [["_id": "u0"]])
            // None of the replacement's events were committed: the next one is the write after it.
            try await store.database("app").collection("books").insertOne(["_id": 9])
            #expect(try await next(1, from: stream).map(\.documentKey) == [["_id": 9]])
        }
    }

    @Test(arguments: EngineKind.allCases) func everyCollectionIsReplacedWithItsIndexesAndEvents(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            try await store.database("app").collection("books").insertOne(["_id": 0])
            let stream = try await store.watch()
            let stored = try await store.replaceContents(
                [
                    CollectionContents(namespace: books, documents: [["_id": 1]]),
                    CollectionContents(
                        namespace: users, documents: [["_id": "u1", "email": "a@b"]],
                        indexes: [["key": ["email": 1], "unique": true]]),
                ], changeLogged: true)
            #expect(stored == 2)
            let events = try await next(3, from: stream)
            #expect(events.map(\.operationType) == [.delete, .insert, .insert])
            #expect(events.map { $0.namespace?.collection } == ["books", "books", "users"])
            #expect(try await store.database("app").collection("users").listIndexes().count == 2)
        }
    }
}
