import BSON
import DocumentStore
import Foundation
import Switchyard
import Testing

@testable import SwitchyardServer

@Suite struct AdminAPICollectionsTests {
    private let books = "/databases/product/collections/book"

    private func find(_ server: AdminTestServer, _ query: String = "") async throws -> BSONDocument {
        let response = try await server.get("\(books)/documents\(query)")
        #expect(response.status == 200, "\(response.text)")
        return response.document ?? [:]
    }

    @Test func databasesAndCollectionsAreListedWithCounts() async throws {
        try await AdminTestServer.run { server in
            _ = try await server.app.store.database("product").collection("book").insertOne(["title": "Dune"])
            _ = try await server.app.store.database("product").collection("customUserData").insertOne(["userId": "u"])
            try await server.settle()
            let databases = try #require(try await server.get("/databases").document?["databases"]?.arrayValue)
            let product = try #require(databases.first { $0.documentValue?["name"] == "product" }?.documentValue)
            // The example app's declared index makes its notification queue when the app opens.
            #expect(
                product["collections"] == [
                    ["name": "book", "count": 1], ["name": "customUserData", "count": 1],
                    ["name": "pushNotification", "count": 0],
                ])
            #expect(databases.contains { $0.documentValue?["name"] == "local" })
            let collections = try await server.get("/databases/product/collections")
            #expect(collections.document?["collections"]?.arrayValue?.count == 3)
            #expect(try await server.get("/databases/none/collections").document?["collections"] == [])
        }
    }

    @Test func findTakesFilterSortProjectionLimitAndSkipInExtendedJSON() async throws {
        try await AdminTestServer.run { server in
            let collection = server.app.store.database("product").collection("book")
            for (index, title) in ["Dune", "Emma", "Ulysses", "Beloved"].enumerated() {
                _ = try await collection.insertOne([
                    "_id": .int64(Int64(index)), "title": .string(title), "pages": .double(Double(100 * index) + 0.5),
                    "added": .datetime(BSONDate(millisecondsSinceEpoch: 1_700_000_000_000)),
                ])
            }
            let all = try await find(server)
            #expect(all["count"]?.int64Value == 4)
            #expect(all["documents"]?.arrayValue?.count == 4)

            let sorted = try await find(
                server,
                "?sort=\(queryValue(#"{"title": 1}"#))&skip=1&limit=2&projection=\(queryValue(#"{"title": 1, "_id": 0}"#))"
            )
            #expect(sorted["documents"] == [["title": "Dune"], ["title": "Emma"]])
            #expect(sorted["count"]?.int64Value == 4)

            let filtered = try await find(
                server, "?filter=\(queryValue(#"{"pages": {"$gt": {"$numberDouble": "150"}}}"#))")
            #expect(filtered["count"]?.int64Value == 2)

            // Relaxed by default, canonical on request: types survive the round trip.
            let relaxed = try await server.get("\(books)/documents?limit=1")
            #expect(relaxed.text.contains(#""added":{"$date":"2023-11-14T22:13:20Z"}"#))
            let canonical = try await server.get("\(books)/documents?limit=1&mode=canonical")
            #expect(canonical.text.contains(#""_id":{"$numberLong":"0"}"#))
            #expect(canonical.document?["documents"]?.arrayValue?.first?.documentValue?["_id"] == .int64(0))
        }
    }

    @Test func badFindArgumentsAre400WithWhereTheProblemIs() async throws {
        try await AdminTestServer.run { server in
            let malformed = try await server.get("\(books)/documents?filter=\(queryValue(#"{"title": }"#))")
            #expect(malformed.status == 400)
            #expect(malformed.document?["error"]?.stringValue?.contains("'filter'") == true)
            #expect(malformed.document?["error"]?.stringValue?.contains("1:") == true)
            let badOperator = try await server.get(
                "\(books)/documents?filter=\(queryValue(#"{"title": {"$nope": 1}}"#))")
            #expect(badOperator.status == 400)
            #expect(badOperator.errorCode == "BadValue")
            #expect(try await server.get("\(books)/documents?limit=0").status == 400)
            #expect(try await server.get("\(books)/documents?skip=-1").status == 400)
            #expect(try await server.get("\(books)/documents?mode=strict").status == 400)
        }
    }

    @Test func insertUpdateReplaceAndDelete() async throws {
        try await AdminTestServer.run { server in
            let inserted = try await server.post(
                "\(books)/documents", #"{"_id": {"$oid": "650000000000000000000001"}, "title": "Dune", "n": 1}"#)
            #expect(inserted.status == 201)
            #expect(inserted.document?["insertedId"] == .objectId(ObjectId(hex: "650000000000000000000001")!))
            let generated = try await server.post("\(books)/documents", #"{"title": "Emma", "n": 2}"#)
            #expect(generated.document?["insertedId"]?.objectIdValue != nil)
            let duplicate = try await server.post(
                "\(books)/documents", #"{"_id": {"$oid": "650000000000000000000001"}}"#)
            #expect(duplicate.status == 409)
            #expect(duplicate.errorCode == "DuplicateKey")

            let updated = try await server.post(
                "\(books)/update", #"{"filter": {"title": "Dune"}, "update": {"$set": {"author": "Herbert"}}}"#)
            #expect(updated.document == ["matchedCount": 1, "modifiedCount": 1])
            let many = try await server.post(
                "\(books)/update", #"{"filter": {}, "update": {"$inc": {"n": 10}}, "multi": true}"#)
            #expect(many.document?["modifiedCount"] == 2)
            let replaced = try await server.post(
                "\(books)/update",
                #"{"filter": {"_id": {"$oid": "650000000000000000000001"}}, "update": {"title": "Dune Messiah"}}"#)
            #expect(replaced.document?["modifiedCount"] == 1)
            let upserted = try await server.post(
                "\(books)/update", #"{"filter": {"title": "Beloved"}, "update": {"$set": {"n": 3}}, "upsert": true}"#)
            #expect(upserted.document?["upsertedId"]?.objectIdValue != nil)

            let collection = server.app.store.database("product").collection("book")
            let messiah = try await collection.findOne(["_id": .objectId(ObjectId(hex: "650000000000000000000001")!)])
            #expect(messiah == ["_id": .objectId(ObjectId(hex: "650000000000000000000001")!), "title": "Dune Messiah"])
            #expect(try await collection.findOne(["title": "Emma"])?["n"] == 12)

            let deleted = try await server.post("\(books)/delete", #"{"filter": {"title": "Emma"}}"#)
            #expect(deleted.document == ["deletedCount": 1])
            let rest = try await server.post("\(books)/delete", #"{"filter": {}, "multi": true}"#)
            #expect(rest.document == ["deletedCount": 2])
            #expect(try await collection.countDocuments() == 0)
        }
    }

    @Test func badWritesAre400AndChangeNothing() async throws {
        try await AdminTestServer.run { server in
            let collection = server.app.store.database("product").collection("book")
            _ = try await collection.insertOne(["title": "Dune"])
            let cases: [(String, String, String)] = [
                ("documents", #"{"title": "#, "malformed Extended JSON body at 1:"),
                ("documents", "", "needs an Extended JSON document"),
                ("update", #"{"update": {"$set": {"a": 1}}}"#, "needs 'filter'"),
                ("update", #"{"filter": {}, "update": 5}"#, "'update' must be a document"),
                ("update", #"{"filter": {}, "update": {"a": 1}, "multi": true}"#, "replaces one document"),
                ("update", #"{"filter": {}, "update": {"$set": {"a": 1}}, "multi": "yes"}"#, "'multi' must be"),
                ("update", #"{"filter": {}, "update": {"$bogus": {"a": 1}}}"#, "$bogus"),
                ("delete", #"{}"#, "needs 'filter'"),
            ]
            for (action, body, message) in cases {
                let response = try await server.post("/databases/product/collections/book/\(action)", body)
                #expect(response.status == 400, "\(action) \(body)")
                #expect(response.document?["error"]?.stringValue?.contains(message) == true, "\(response.text)")
            }
            #expect(try await collection.find().toArray().map { $0["title"] } == ["Dune"])
        }
    }

    @Test func writesThroughTheAdminAPIFireTriggers() async throws {
        try await AdminTestServer.run { server in
            let inserted = try await server.post(
                "\(books)/documents", #"{"volumeInfo": {"title": "Dune", "authors": ["Frank Herbert"]}}"#)
            #expect(inserted.status == 201)
            try await server.settle()
            let added = try #require(try await server.app.outbox().last)
            #expect(added.target == .topic("books"))
            #expect(added.payload?["notification"]?.documentValue?["title"] == "New book added")
            #expect(added.payload?["notification"]?.documentValue?["body"] == "Dune has been added to the list")

            let id = try #require(inserted.document?["insertedId"]?.objectIdValue)
            let deleted = try await server.post("\(books)/delete", #"{"filter": {"_id": {"$oid": "\#(id.hex)"}}}"#)
            #expect(deleted.document?["deletedCount"] == 1)
            try await server.settle()
            let removed = try #require(try await server.app.outbox().last)
            #expect(removed.payload?["notification"]?.documentValue?["title"] == "Book deleted")
            #expect(try await server.app.invocations.records(trigger: "onBookPushNotification").count == 2)
        }
    }
}
