import BSON
import Testing

@testable import DocumentStore

@Suite struct DocumentCollectionTests {
    // MARK: Storage paths that need no query or update operators

    /// A count keeps no document (`StoreView.count`): it must still answer what `find` would count.
    @Test(arguments: EngineKind.allCases) func countDocumentsCountsWhatFindFindsWithSkipAndLimit(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("counted")
            _ = try await c.insertMany((0..<10).map { ["_id": .int32(Int32($0)), "even": .bool($0 % 2 == 0)] })
            #expect(try await c.countDocuments() == 10)
            #expect(try await c.countDocuments(["even": true]) == 5)
            #expect(try await c.countDocuments(["even": true], skip: 2) == 3)
            #expect(try await c.countDocuments(["even": true], skip: 1, limit: 2) == 2)
            #expect(try await c.countDocuments(["even": true], skip: 4, limit: 3) == 1)
            #expect(try await c.countDocuments(["even": true], limit: -3) == 3)
            #expect(try await c.countDocuments(["even": true], skip: 9) == 0)
            #expect(try await store.database("app").collection("none").countDocuments() == 0)
            await #expect(throws: StoreError.self) { try await c.countDocuments([:], skip: -1) }
        }
    }

    @Test(arguments: EngineKind.allCases) func insertAddsObjectIdFirstAndFindReturnsDocuments(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let books = store.database("app").collection("books")
            let result = try await books.insertOne(["title": "Dune", "year": 1965])
            guard case .objectId = result.insertedId else {
                Issue.record("expected an ObjectId, got \(result.insertedId)")
                return
            }
            let all = try await books.find().toArray()
            #expect(all == [["_id": result.insertedId, "title": "Dune", "year": 1965]])
            #expect(try await books.estimatedDocumentCount() == 1)
            #expect(try await books.countDocuments() == 1)
        }
    }

    @Test(arguments: EngineKind.allCases) func duplicateIdFailsWithE11000(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1, "title": "Dune"])
            let error = await expectStoreError(.duplicateKey) {
                try await books.insertOne(["_id": 1.0, "title": "Emma"])
            }
            #expect(error?.codeName == "DuplicateKey")
            #expect(
                error?.message == "E11000 duplicate key error collection: app.books index: _id_ dup key: { _id: 1.0 }")
            #expect(try await books.find().toArray() == [["_id": 1, "title": "Dune"]])
        }
    }

    @Test(arguments: EngineKind.allCases) func arrayIdIsRejected(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            await expectStoreError(53) { try await store.database("app").collection("c").insertOne(["_id": [1, 2]]) }
        }
    }

    @Test(arguments: EngineKind.allCases) func aDocumentTooDeepForItsChangeEventIsRefused(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let stream = try await c.watch()
            func nested(_ levels: Int) -> BSON {
                var value: BSON = 1
                for _ in 0..<levels { value = ["a": value] }
                return value
            }
            // The event holds the document one level deeper than the document's own limit allows.
            let deepest = BSONDocument.maximumNestingDepth - 1
            await expectStoreError(.badValue) { try await c.insertOne(["_id": 1, "x": nested(deepest)]) }
            try await c.insertOne(["_id": 2, "x": nested(deepest - 1)])
            #expect(try await c.countDocuments() == 1)
            let events = try await next(1, from: stream)
            #expect(events.first?.fullDocument?["x"] == nested(deepest - 1))
        }
    }

    /// In `local` (no change log) an index-free collection's inserts take no savepoint each; the answers are the same.
    @Test(arguments: EngineKind.allCases, ["local", "app"])
    func orderedInsertManyStopsAtFirstErrorKeepingEarlierDocuments(kind: EngineKind, database: String) async throws {
        try await withStore(kind) { store in
            let c = store.database(database).collection("c")
            do {
                try await c.insertMany([["_id": 1], ["_id": 2], ["_id": 1], ["_id": 3]])
                Issue.record("expected a BulkWriteError")
            } catch let error as BulkWriteError {
                #expect(error.writeErrors.map(\.index) == [2])
                #expect(error.writeErrors.first?.code == .duplicateKey)
                #expect(error.result.insertedCount == 2)
            }
            #expect(try await c.find().toArray() == [["_id": 1], ["_id": 2]])
        }
    }

    @Test(arguments: EngineKind.allCases, ["local", "app"])
    func unorderedInsertManyReportsEveryError(kind: EngineKind, database: String) async throws {
        try await withStore(kind) { store in
            let c = store.database(database).collection("c")
            do {
                try await c.insertMany([["_id": 1], ["_id": 1], ["_id": 2], ["_id": 2], ["_id": 3]], ordered: false)
                Issue.record("expected a BulkWriteError")
            } catch let error as BulkWriteError {
                #expect(error.writeErrors.map(\.index) == [1, 3])
                #expect(error.writeErrors.allSatisfy { $0.code == .duplicateKey && $0.errmsg.hasPrefix("E11000") })
                #expect(error.result.insertedIds == [0: 1, 2: 2, 4: 3])
            }
            #expect(try await c.countDocuments() == 3)
        }
    }

    /// A document refused by a unique index after its row was written leaves neither the row nor index entries.
    @Test(arguments: EngineKind.allCases, ["local", "app"])
    func unorderedInsertManyIntoAnIndexedCollectionUndoesEachRefusedDocument(kind: EngineKind, database: String)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database(database).collection("c")
            try await c.createIndex(["k": 1], unique: true)
            try await c.createIndex(["tag": 1])
            do {
                try await c.insertMany(
                    [
                        ["_id": 1, "k": 1, "tag": "a"], ["_id": 2, "k": 1, "tag": "b"], ["_id": 3, "k": 2, "tag": "b"],
                    ],
                    ordered: false)
                Issue.record("expected a BulkWriteError")
            } catch let error as BulkWriteError {
                #expect(error.writeErrors.map(\.index) == [1])
                #expect(error.result.insertedIds == [0: 1, 2: 3])
            }
            #expect(try await c.find(["tag": "b"]).toArray() == [["_id": 3, "k": 2, "tag": "b"]])
            #expect(try await c.find(["_id": 2]).toArray().isEmpty)
            try await c.insertOne(["_id": 2, "k": 3, "tag": "b"])
            #expect(try await c.countDocuments(["tag": "b"]) == 2)
        }
    }

    @Test(arguments: EngineKind.allCases) func uniqueIndexRejectsDuplicatesAcrossNumericTypes(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let users = store.database("app").collection("users")
            #expect(try await users.createIndex(["name": 1], unique: true) == "name_1")
            try await users.insertOne(["_id": 1, "name": "x", "n": 1])
            let error = await expectStoreError(.duplicateKey) { try await users.insertOne(["_id": 2, "name": "x"]) }
            #expect(
                error?.message
                    == #"E11000 duplicate key error collection: app.users index: name_1 dup key: { name: "x" }"#)
            try await users.createIndex(["n": 1], unique: true)
            await expectStoreError(.duplicateKey) { try await users.insertOne(["_id": 3, "name": "y", "n": 1.0]) }
            #expect(try await users.estimatedDocumentCount() == 1)
        }
    }

    @Test(arguments: EngineKind.allCases) func uniqueMultikeyAndCompoundIndexes(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.createIndex(["tags": 1], unique: true)
            try await c.insertOne(["_id": 1, "tags": ["a", "b", "a"]])
            await expectStoreError(.duplicateKey) { try await c.insertOne(["_id": 2, "tags": ["c", "b"]]) }
            try await c.insertOne(["_id": 3, "tags": ["c"]])
            // Documents without the fields index as { x: null, y: null }: only one may exist.
            await expectStoreError(.duplicateKey) { try await c.createIndex(["x": 1, "y": -1], unique: true) }
            let d = store.database("app").collection("d")
            try await d.createIndex(["x": 1, "y": -1], unique: true)
            try await d.insertOne(["_id": 4, "x": 1, "y": 1])
            try await d.insertOne(["_id": 5, "x": 1, "y": 2])
            let error = await expectStoreError(.duplicateKey) { try await d.insertOne(["_id": 6, "x": 1, "y": 2]) }
            #expect(error?.message.hasSuffix("app.d index: x_1_y_-1 dup key: { x: 1, y: 2 }") == true)
        }
    }

    @Test(arguments: EngineKind.allCases) func creatingAUniqueIndexOverDuplicatesFailsAndLeavesNoIndex(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.insertMany([["_id": 1, "k": 5], ["_id": 2, "k": 5]])
            await expectStoreError(.duplicateKey) { try await c.createIndex(["k": 1], unique: true) }
            #expect(try await c.listIndexes() == [["v": 2, "key": ["_id": 1], "name": "_id_"]])
            try await c.createIndex(["k": 1])
            #expect(try await c.listIndexes().map { $0["name"] } == ["_id_", "k_1"])
            try await c.dropIndex("k_1")
            await expectStoreError(.indexNotFound) { try await c.dropIndex("k_1") }
            await expectStoreError(.invalidOptions) { try await c.dropIndex("_id_") }
        }
    }

    /// An index built over a collection far larger than one storage page or one find batch: a unique key
    /// repeated by the first and the last document is found, and the multikey index answers for every document.
    @Test(arguments: EngineKind.allCases) func indexesBuiltOverALargeCollectionCoverEveryDocument(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let count = 3_000
            let padding = String(repeating: "p", count: 200)
            try await c.insertMany(
                (0..<count).map { i in
                    [
                        "_id": .int32(Int32(i)), "k": .int32(Int32(i == count - 1 ? 0 : i)),
                        "tags": [.int32(Int32(i % 7)), .string("t\(i % 3)"), .int32(Int32(i % 7))],
                        "padding": .string(padding),
                    ]
                })
            let error = await expectStoreError(.duplicateKey) { try await c.createIndex(["k": 1], unique: true) }
            #expect(error?.message.hasSuffix("app.c index: k_1 dup key: { k: 0 }") == true)
            #expect(try await c.listIndexes().map { $0["name"] } == ["_id_"])
            try await c.updateOne(["_id": .int32(Int32(count - 1))], ["$set": ["k": .int32(Int32(count))]])
            #expect(try await c.createIndex(["k": 1], unique: true) == "k_1")
            await expectStoreError(.duplicateKey) { try await c.insertOne(["_id": -1, "k": .int32(Int32(count))]) }
            // Each document repeats a tag within itself, which a unique multikey index allows.
            let unique = store.database("app").collection("u")
            try await unique.insertMany(
                (0..<count).map { ["_id": .int32(Int32($0)), "tags": [.int32(Int32($0)), .int32(Int32($0))]] })
            #expect(try await unique.createIndex(["tags": 1], unique: true) == "tags_1")

            try await c.createIndex(["tags": 1])
            let expected = (0..<count).filter { $0 % 7 == 3 }.map { BSON.int32(Int32($0)) }
            let plan = try await c.explain(["tags": 3])
            #expect(plan.stage == "IXSCAN" && plan.indexName == "tags_1" && plan.returned == expected.count)
            #expect(plan.keysExamined == expected.count)
            #expect(
                try await c.find(["tags": 3], options: FindOptions(sort: ["_id": 1])).toArray().map { $0["_id"] }
                    == expected)
            #expect(try await c.countDocuments(["tags": "t2"]) == (0..<count).filter { $0 % 3 == 2 }.count)
        }
    }

    @Test(arguments: EngineKind.allCases) func collectionsAndDatabases(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let app = store.database("app")
            try await app.createCollection(
                "books", options: CreateCollectionOptions(changeStreamPreAndPostImages: true))
            await expectStoreError(.namespaceExists) { try await app.createCollection("books") }
            try await app.collection("users").insertOne(["_id": 1])
            try await store.database("other").collection("x").insertOne(["_id": 1])
            #expect(try await app.listCollectionNames() == ["books", "users"])
            #expect(try await store.listDatabaseNames() == ["app", "other"])

            let renamed = try await app.collection("users").rename(to: "people")
            #expect(try await renamed.find().toArray() == [["_id": 1]])
            await expectStoreError(.namespaceExists) { try await renamed.rename(to: "books") }
            await expectStoreError(.namespaceNotFound) { try await app.collection("missing").rename(to: "x") }
            try await renamed.rename(to: "books", dropTarget: true)
            #expect(try await app.listCollectionNames() == ["books"])

            #expect(try await app.collection("books").drop())
            #expect(try await app.collection("books").drop() == false)
            try await store.dropDatabase("other")
            #expect(try await store.listDatabaseNames() == [])
            await expectStoreError(73) { try await app.collection("a$b").insertOne([:]) }
        }
    }

    @Test(arguments: EngineKind.durable) func dataSurvivesCloseAndReopen(kind: EngineKind) async throws {
        let directory = TemporaryDirectory()
        let config = try await configuration(kind, directory: directory)
        var store = try await DocumentStore.open(config)
        let app = store.database("app")
        try await app.createCollection("books", options: CreateCollectionOptions(changeStreamPreAndPostImages: true))
        try await app.collection("books").createIndex(["isbn": 1], unique: true)
        try await app.collection("books").insertMany([["_id": 1, "isbn": "a"], ["_id": 2, "isbn": "b"]])
        let before = try await store.watch().startingPoint
        await store.close()

        store = try await DocumentStore.open(config)
        let books = store.database("app").collection("books")
        #expect(try await books.find().toArray() == [["_id": 1, "isbn": "a"], ["_id": 2, "isbn": "b"]])
        #expect(try await books.listIndexes().map { $0["name"] } == ["_id_", "isbn_1"])
        await expectStoreError(.duplicateKey) { try await books.insertOne(["_id": 3, "isbn": "a"]) }
        try await books.insertOne(["_id": 3, "isbn": "c"])
        // The sequence continues after a restart: the new event comes after the old ones.
        let events = try await next(1, from: try await store.watch(options: ChangeStreamOptions(resumeAfter: before)))
        #expect(events.first?.documentKey == ["_id": 3])
        #expect(events.first!.id.sequence > before.sequence)
        await store.close()
    }

    @Test func closedStoreRefusesWork() async throws {
        let store = try await DocumentStore.open(.memory)
        await store.close()
        await expectStoreError(17_003) { try await store.database("a").collection("b").insertOne([:]) }
    }

    // MARK: Paths through query filters and update operators

    @Test(arguments: EngineKind.allCases) func findWithFilterSortSkipLimitProjection(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.insertMany((1...6).map { ["_id": .int32(Int32($0)), "n": .int32(Int32($0 % 3)), "x": "v"] })
            let found = try await c.find(
                ["n": ["$gte": 1]],
                options: FindOptions(projection: ["x": 0], sort: ["n": -1, "_id": 1], skip: 1, limit: 2)
            ).toArray()
            #expect(found == [["_id": 5, "n": 2], ["_id": 1, "n": 1]])
            #expect(try await c.findOne(["_id": 4]) == ["_id": 4, "n": 1, "x": "v"])
            #expect(try await c.countDocuments(["n": 0]) == 2)
            #expect(try await c.countDocuments(["n": ["$gt": 0]], skip: 1, limit: 2) == 2)
            var streamed: [BSON] = []
            for try await document in c.find(["n": 1]) { streamed.append(document["_id"]!) }
            #expect(streamed == [1, 4])
        }
    }

    @Test(arguments: EngineKind.allCases) func distinctFlattensArrays(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.insertMany([
                ["_id": 1, "tags": ["a", "b"], "k": 1], ["_id": 2, "tags": "b", "k": 1],
                ["_id": 3, "tags": [], "k": 1],
                ["_id": 4, "k": 2, "tags": ["z"]], ["_id": 5, "tags": [1, 1.0], "k": 1],
            ])
            #expect(try await c.distinct("tags", filter: ["k": 1]) == [1, "a", "b"])
        }
    }

    @Test(arguments: EngineKind.allCases) func updateResultsCountMatchesAndRealModifications(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.insertMany([["_id": 1, "n": 1], ["_id": 2, "n": 2], ["_id": 3, "n": 2]])
            let many = try await c.updateMany(["n": 2], ["$set": ["n": 2, "seen": true]])
            #expect(many == UpdateResult(matchedCount: 2, modifiedCount: 2, upsertedId: nil))
            let noop = try await c.updateOne(["_id": 2], ["$set": ["n": 2]])
            #expect(noop == UpdateResult(matchedCount: 1, modifiedCount: 0, upsertedId: nil))
            let none = try await c.updateOne(["_id": 9], ["$set": ["n": 2]])
            #expect(none == UpdateResult(matchedCount: 0, modifiedCount: 0, upsertedId: nil))
            let replaced = try await c.replaceOne(["_id": 1], ["title": "new"])
            #expect(replaced.modifiedCount == 1)
            #expect(try await c.findOne(["_id": 1]) == ["_id": 1, "title": "new"])
            await expectStoreError(.immutableField) { try await c.updateOne(["_id": 1], ["$set": ["_id": 5]]) }
            await expectStoreError(.failedToParse) { try await c.updateOne(["_id": 1], ["plain": 1]) }
            await expectStoreError(.failedToParse) { try await c.replaceOne(["_id": 1], ["$set": ["a": 1]]) }
        }
    }

    @Test(arguments: EngineKind.allCases) func upsertsInsertFilterEqualitiesPlusUpdate(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let result = try await c.updateOne(
                ["name": "ann", "age": ["$gt": 3], "team.id": 7],
                ["$set": ["x": 1], "$setOnInsert": ["created": true]],
                upsert: true)
            #expect(result.matchedCount == 0 && result.modifiedCount == 0 && result.upsertedCount == 1)
            let id = try #require(result.upsertedId)
            #expect(
                try await c.findOne(["_id": id]) == [
                    "_id": id, "name": "ann", "team": ["id": 7], "created": true, "x": 1,
                ])
            let replaced = try await c.replaceOne(["_id": 42], ["title": "t"], upsert: true)
            #expect(replaced.upsertedId == 42)
            #expect(try await c.findOne(["_id": 42]) == ["_id": 42, "title": "t"])
            let again = try await c.updateOne(["name": "ann"], ["$set": ["x": 2]], upsert: true)
            #expect(again == UpdateResult(matchedCount: 1, modifiedCount: 1, upsertedId: nil))
        }
    }

    @Test(arguments: EngineKind.allCases) func uniqueIndexEnforcedOnUpdateUpsertAndReplace(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.createIndex(["email": 1], unique: true)
            try await c.insertMany([["_id": 1, "email": "a"], ["_id": 2, "email": "b"], ["_id": 3, "email": "c"]])
            await expectStoreError(.duplicateKey) { try await c.updateOne(["_id": 2], ["$set": ["email": "a"]]) }
            await expectStoreError(.duplicateKey) { try await c.replaceOne(["_id": 2], ["email": "a"]) }
            await expectStoreError(.duplicateKey) {
                try await c.updateOne(["_id": 9], ["$set": ["email": "a"]], upsert: true)
            }
            // A multi-document update that would collide changes nothing at all.
            await expectStoreError(.duplicateKey) { try await c.updateMany([:], ["$set": ["email": "same"]]) }
            #expect(
                try await c.find(options: FindOptions(sort: ["_id": 1])).toArray().map { $0["email"] } == [
                    "a", "b", "c",
                ])
            // Moving a key away frees it.
            try await c.updateOne(["_id": 1], ["$set": ["email": "z"]])
            try await c.updateOne(["_id": 2], ["$set": ["email": "a"]])
        }
    }

    @Test(arguments: EngineKind.allCases) func deletes(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.insertMany([["_id": 1, "k": 1], ["_id": 2, "k": 1], ["_id": 3, "k": 2]])
            #expect(try await c.deleteOne(["k": 1]).deletedCount == 1)
            #expect(try await c.deleteMany(["k": ["$gte": 1]]).deletedCount == 2)
            #expect(try await c.deleteMany([:]).deletedCount == 0)
        }
    }

    /// `local` collections without indexes are deleted from by key when the filter names `_id`s exactly; the
    /// answers and what remains are those of any other collection.
    @Test(arguments: EngineKind.allCases, ["local", "app"]) func deletesByIdentifier(kind: EngineKind, database: String)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database(database).collection("log")
            let ids = (0..<4).map { _ in BSON.objectId(ObjectId()) }
            try await c.insertMany(ids.map { ["_id": $0] } + [["_id": "s"], ["_id": 7]])
            #expect(
                try await c.deleteMany(["_id": ["$in": [ids[0], ids[2], "s", .objectId(ObjectId()), ids[0]]]])
                    .deletedCount == 3)
            #expect(try await c.deleteOne(["_id": ids[1]]).deletedCount == 1)
            #expect(try await c.deleteOne(["_id": ids[1]]).deletedCount == 0)
            #expect(try await c.deleteMany(["_id": ["$in": [7.0, ids[3]]]]).deletedCount == 2)
            #expect(try await c.find().toArray().isEmpty)
        }
    }

    @Test(arguments: EngineKind.allCases) func findOneAndModify(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("queue")
            try await c.insertMany([["_id": 1, "p": 2, "done": false], ["_id": 2, "p": 5, "done": false]])
            let before = try await c.findOneAndUpdate(
                ["done": false], ["$set": ["done": true]], options: FindOneAndModifyOptions(sort: ["p": -1]))
            #expect(before == ["_id": 2, "p": 5, "done": false])
            let after = try await c.findOneAndUpdate(
                ["done": false], ["$set": ["done": true]],
                options: FindOneAndModifyOptions(projection: ["p": 0], returnDocument: .after))
            #expect(after == ["_id": 1, "done": true])
            let upserted = try await c.findOneAndUpdate(
                ["_id": 3], ["$set": ["p": 1]], options: FindOneAndModifyOptions(returnDocument: .after, upsert: true))
            #expect(upserted == ["_id": 3, "p": 1])
            let replaced = try await c.findOneAndReplace(
                ["_id": 3], ["p": 9], options: FindOneAndModifyOptions(returnDocument: .after))
            #expect(replaced == ["_id": 3, "p": 9])
            #expect(try await c.findOneAndDelete([:], sort: ["p": 1]) == ["_id": 1, "p": 2, "done": true])
            #expect(try await c.findOneAndDelete(["_id": 99]) == nil)
        }
    }

    @Test(arguments: EngineKind.allCases) func bulkWriteCombinesResults(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let result = try await c.bulkWrite([
                .insertOne(["_id": 1, "n": 1]), .insertOne(["_id": 2, "n": 1]),
                .updateMany(filter: ["n": 1], update: ["$inc": ["n": 1]]),
                .updateOne(filter: ["_id": 7], update: ["$set": ["n": 0]], upsert: true),
                .replaceOne(filter: ["_id": 2], replacement: ["n": 10]), .deleteOne(filter: ["_id": 7]),
            ])
            #expect(result.insertedCount == 2)
            #expect(result.matchedCount == 3 && result.modifiedCount == 3)
            #expect(result.upsertedIds == [3: 7])
            #expect(result.deletedCount == 1)
            do {
                try await c.bulkWrite(
                    [
                        .insertOne(["_id": 1]), .deleteOne(filter: ["_id": 2]), .insertOne(["_id": 2]),
                        .insertOne(["_id": 2]),
                    ],
                    ordered: false)
                Issue.record("expected a BulkWriteError")
            } catch let error as BulkWriteError {
                #expect(error.writeErrors.map(\.index) == [0, 3])
                #expect(error.result.deletedCount == 1 && error.result.insertedCount == 1)
            }
        }
    }

    @Test(arguments: EngineKind.allCases) func explainShowsIndexUse(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.insertMany(
                (0..<50).map { ["_id": .int32(Int32($0)), "name": .string("n\($0)"), "n": .int32(Int32($0))] })
            let scan = try await c.explain(["name": "n7"])
            #expect(scan.stage == "COLLSCAN" && scan.documentsExamined == 50 && scan.returned == 1)
            try await c.createIndex(["name": 1])
            let indexed = try await c.explain(["name": "n7"])
            #expect(indexed.stage == "IXSCAN" && indexed.indexName == "name_1")
            #expect(indexed.documentsExamined == 1 && indexed.keysExamined == 1 && indexed.returned == 1)
            let byId = try await c.explain(["_id": ["$in": [3, 4, 99]]])
            #expect(byId.stage == "IDHACK" && byId.documentsExamined == 2 && byId.returned == 2)
            try await c.createIndex(["n": 1])
            let range = try await c.explain(["n": ["$gte": 45]])
            #expect(
                range.stage == "IXSCAN" && range.indexName == "n_1" && range.documentsExamined == 5
                    && range.returned == 5)
            #expect(try await c.find(["n": ["$gte": 45.5]]).toArray().map { $0["_id"] } == [46, 47, 48, 49])
        }
    }

    /// A collection scan visits documents as it reads them: a find that has its page ends the scan there.
    @Test(arguments: EngineKind.allCases) func aCollectionScanStopsAtTheLimit(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.insertMany((0..<50).map { ["_id": .int32(Int32($0)), "n": .int32(Int32($0 % 5))] })
            let page = try await c.explain(["n": 2], options: FindOptions(limit: 3))
            #expect(page.stage == "COLLSCAN" && page.returned == 3 && page.documentsExamined == 13)
            #expect(
                try await c.find(["n": 2], options: FindOptions(limit: 3)).toArray().map { $0["_id"] } == [2, 7, 12])
            let all = try await c.explain(["n": 2])
            #expect(all.documentsExamined == 50 && all.returned == 10)
        }
    }

    @Test(arguments: EngineKind.allCases) func multikeyIndexFindsArrayElements(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.createIndex(["tags.name": 1])
            try await c.insertMany([
                ["_id": 1, "tags": [["name": "a"], ["name": "b"]]], ["_id": 2, "tags": [["name": "b"]]],
                ["_id": 3, "tags": [0, 10]],
            ])
            let plan = try await c.explain(["tags.name": "b"])
            #expect(plan.stage == "IXSCAN" && plan.returned == 2)
            try await c.createIndex(["tags": 1])
            // Different elements may satisfy each bound of a range on an array.
            #expect(try await c.find(["tags": ["$gt": 1, "$lt": 5]]).toArray().map { $0["_id"] } == [3])
        }
    }

    @Test(arguments: EngineKind.allCases) func aggregateWithLookup(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let app = store.database("app")
            try await app.collection("authors").insertOne(["_id": 1, "name": "Herbert"])
            try await app.collection("books").insertMany([
                ["_id": 1, "author": 1, "year": 1965], ["_id": 2, "author": 1, "year": 1969],
            ])
            let result = try await app.collection("books").aggregate([
                ["$match": ["year": ["$gt": 1966]]],
                ["$lookup": ["from": "authors", "localField": "author", "foreignField": "_id", "as": "by"]],
                ["$project": ["_id": 1, "by.name": 1]],
            ])
            #expect(result == [["_id": 2, "by": [["name": "Herbert"]]]])
        }
    }
}
