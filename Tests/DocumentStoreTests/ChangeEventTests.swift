import BSON
import Testing

@testable import DocumentStore

@Suite struct ChangeEventTests {
    @Test func anEventReadsBackFromItsDocument() async throws {
        try await withStore(.memory) { store in
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1, "title": "Dune", "meta": ["pages": 1]])
            let stream = try await books.watch()
            try await books.updateOne(["_id": 1], ["$set": ["meta.pages": 412]])
            let emitted = try #require(try await next(1, from: stream).first)
            let text = emitted.raw.extendedJSON(mode: .canonical)
            let read = try ChangeEvent(raw: try BSONDocument(extendedJSON: text))
            #expect(read == emitted)
            #expect(read.updateDescription?.updatedFields == ["meta.pages": 412])
        }
    }

    @Test func rejectsDocumentsThatAreNotEvents() {
        let token: BSON = ["_data": "0000000000000007"]
        let cases: [(BSONDocument, String)] = [
            (["operationType": "insert"], "change event has no _id (its resume token)"),
            (
                ["_id": ["_data": "82635F"], "operationType": "insert"],
                #"change event _id {"_data":"82635F"} is not a resume token of this store ({"_data": "<16 hexadecimal digits>"})"#
            ),
            (["_id": token], "change event has no operationType string"),
            (["_id": token, "operationType": "upsert"], "change event has an unknown operationType 'upsert'"),
            (
                ["_id": token, "operationType": "delete", "documentKey": ["_id": 1]],
                "delete event needs ns: {db: <string>, coll: <string>}"
            ),
            (
                ["_id": token, "operationType": "insert", "ns": ["db": "a", "coll": "b"]],
                "insert event needs a documentKey document"
            ),
        ]
        for (raw, message) in cases {
            #expect(throws: StoreError.badValue(message)) { try ChangeEvent(raw: raw) }
        }
        let drop = try? ChangeEvent(raw: ["_id": token, "operationType": "dropDatabase", "ns": ["db": "a"]])
        #expect(drop?.namespace == Namespace(database: "a", collection: ""))
        #expect(drop?.id == ResumeToken(sequence: 7))
    }
}
