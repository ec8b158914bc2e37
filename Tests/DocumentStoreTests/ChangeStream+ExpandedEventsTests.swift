import BSON
import Testing

@testable import DocumentStore

/// The DDL events MongoDB 6+ emits to streams opened with `showExpandedEvents: true`, logged in the
/// transaction of the catalog change and hidden from every other stream.
@Suite struct ChangeStreamExpandedEventsTests {
    static let expanded = ChangeStreamOptions(showExpandedEvents: true)
    static let idIndex: BSON = ["v": 2, "key": ["_id": 1], "name": "_id_"]

    @Test(arguments: EngineKind.allCases) func collectionsCreatedExplicitlyOrByAFirstWriteLogCreate(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let app = store.database("app")
            let stream = try await store.watch(options: Self.expanded)
            try await app.createCollection("a", options: CreateCollectionOptions(changeStreamPreAndPostImages: true))
            try await app.collection("b").insertOne(["_id": 1])
            try await app.collection("b").insertOne(["_id": 2])
            _ = try await app.collection("c").createIndex(["n": 1])

            let events = try await next(6, from: stream)
            #expect(events.map(\.operationType) == [.create, .create, .insert, .insert, .create, .createIndexes])
            #expect(events.map(\.namespace?.collection) == ["a", "b", "b", "b", "c", "c"])
            let create = events[0]
            #expect(
                create.raw.keys == ["_id", "operationType", "clusterTime", "wallTime", "ns", "operationDescription"])
            #expect(create.raw["ns"] == ["db": "app", "coll": "a"])
            #expect(
                create.operationDescription == [
                    "changeStreamPreAndPostImages": ["enabled": true], "idIndex": Self.idIndex,
                ])
            #expect(events[1].operationDescription == ["idIndex": Self.idIndex])
            #expect(events[4].operationDescription == ["idIndex": Self.idIndex])
        }
    }

    @Test(arguments: EngineKind.allCases) func indexesCreatedAndDroppedLogTheirSpecification(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let books = try await store.database("app").createCollection("books")
            try await books.insertMany([["_id": 1, "isbn": "x", "title": "A"], ["_id": 2, "isbn": "x", "title": "B"]])
            let stream = try await books.watch(options: Self.expanded)
            _ = try await books.createIndex(["title": 1, "year": -1], unique: true)
            // The same index again changes nothing, and a unique index the documents break is never made.
            _ = try await books.createIndex(["title": 1, "year": -1], unique: true)
            await expectStoreError(.duplicateKey) { _ = try await books.createIndex(["isbn": 1], unique: true) }
            try await books.dropIndex("title_1_year_-1")

            let events = try await next(2, from: stream)
            #expect(events.map(\.operationType) == [.createIndexes, .dropIndexes])
            let specification: BSON = [
                "v": 2, "key": ["title": 1, "year": -1], "name": "title_1_year_-1", "unique": true,
            ]
            for event in events {
                #expect(
                    event.raw.keys == ["_id", "operationType", "clusterTime", "wallTime", "ns", "operationDescription"])
                #expect(event.raw["ns"] == ["db": "app", "coll": "books"])
                #expect(event.operationDescription == ["indexes": [specification]])
            }
            #expect(events[1].id.sequence == events[0].id.sequence + 1)
        }
    }

    @Test(arguments: EngineKind.allCases) func collModLogsModifyWithTheOptionsBefore(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let books = try await store.database("app").createCollection("books")
            let stream = try await store.database("app").watch(options: Self.expanded)
            try await books.setChangeStreamPreAndPostImages(true)
            try await books.setChangeStreamPreAndPostImages(false)

            let events = try await next(2, from: stream)
            #expect(events.map(\.operationType) == [.modify, .modify])
            #expect(
                events[0].raw.keys == [
                    "_id", "operationType", "clusterTime", "wallTime", "ns", "operationDescription",
                    "stateBeforeChange",
                ])
            #expect(events[0].operationDescription == ["changeStreamPreAndPostImages": ["enabled": true]])
            #expect(events[0].raw["stateBeforeChange"] == ["collectionOptions": [:]])
            #expect(events[1].operationDescription == ["changeStreamPreAndPostImages": ["enabled": false]])
            #expect(
                events[1].raw["stateBeforeChange"] == [
                    "collectionOptions": ["changeStreamPreAndPostImages": ["enabled": true]]
                ])
        }
    }

    @Test(arguments: EngineKind.allCases) func renameDescribesItsTargetToExpandedStreams(kind: EngineKind) async throws
    {
        try await withStore(kind) { store in
            let app = store.database("app")
            try await app.createCollection("a")
            let expanded = try await app.collection("a").watch(options: Self.expanded)
            let plain = try await app.collection("a").watch()
            try await app.collection("a").rename(to: "b")

            let events = try await next(2, from: expanded)
            #expect(events.map(\.operationType) == [.rename, .invalidate])
            #expect(
                events[0].raw.keys == [
                    "_id", "operationType", "clusterTime", "wallTime", "ns", "to", "operationDescription",
                ])
            #expect(events[0].operationDescription == ["to": ["db": "app", "coll": "b"]])
            #expect(events[0].to == Namespace(database: "app", collection: "b"))
            let plainEvents = try await next(2, from: plain)
            #expect(plainEvents[0].raw.keys == ["_id", "operationType", "clusterTime", "wallTime", "ns", "to"])
            #expect(plainEvents[0].operationDescription == nil)
        }
    }

    @Test(arguments: EngineKind.allCases) func streamsWithoutTheOptionSeeNoDDLEvents(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let app = store.database("app")
            let start = try await store.watch().startingPoint
            let live = try await store.watch()
            // A pipeline reads the log instead of the commits in memory: both paths leave the events out.
            let piped = try await app.watch([["$match": ["ns.db": "app"]]])
            let books = try await app.createCollection("books")
            _ = try await books.createIndex(["title": 1])
            try await books.setChangeStreamPreAndPostImages(true)
            try await books.dropIndex("title_1")
            try await books.insertOne(["_id": 1])

            for stream in [live, piped] {
                let events = try await next(1, from: stream)
                #expect(events.map(\.operationType) == [.insert])
                #expect(events.first?.id.sequence == start.sequence + 5)
            }
            let replayed = try await store.watch(options: ChangeStreamOptions(resumeAfter: start))
            #expect(try await next(1, from: replayed).map(\.operationType) == [.insert])
            let expanded = try await store.watch(
                options: ChangeStreamOptions(resumeAfter: start, showExpandedEvents: true))
            #expect(
                try await next(5, from: expanded).map(\.operationType) == [
                    .create, .createIndexes, .modify, .dropIndexes, .insert,
                ])
        }
    }

    @Test(arguments: EngineKind.allCases) func aRolledBackCreationLogsNothing(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let stream = try await store.watch(options: Self.expanded)
            // The insert creates the collection in a transaction that is then aborted: no `create` is left.
            let transaction = try await store.startTransaction(lifetime: .seconds(60))
            try await transaction.run { try await store.database("app").collection("books").insertOne(["_id": 1]) }
            await transaction.abort()
            try await store.database("app").collection("other").insertOne(["_id": 1])
            let events = try await next(2, from: stream)
            #expect(events.map(\.operationType) == [.create, .insert])
            #expect(events.map(\.namespace?.collection) == ["other", "other"])
            #expect(try await store.database("app").listCollectionNames() == ["other"])
        }
    }
}
