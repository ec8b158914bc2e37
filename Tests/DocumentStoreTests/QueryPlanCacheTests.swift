import BSON
import Testing

@testable import DocumentStore

/// Queries of a shape seen before take their plan from the collection's cache: they must find what a
/// freshly planned query finds, whatever happened to the indexes and the collection in between.
@Suite struct QueryPlanCacheTests {
    @Test(arguments: EngineKind.allCases) func aShapeBindsEachQuerysOwnValues(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.createIndex(["isbn": 1])
            try await c.insertMany((0..<20).map { ["_id": .int32(Int32($0)), "isbn": .string("i\($0)"), "n": 1] })
            for i in 0..<20 {
                #expect(try await c.findOne(["isbn": .string("i\(i)")])?["_id"] == .int32(Int32(i)))
                #expect(try await c.findOne(["_id": .int32(Int32(i))])?["isbn"] == .string("i\(i)"))
                #expect(try await c.findOne(["isbn": .string("i\(i)"), "n": 2]) == nil)
            }
            #expect(try await c.findOne(["isbn": "none"]) == nil)
            // Numbers of any type are equal when their values are, through the cached plan too.
            #expect(try await c.findOne(["_id": 3.0])?["isbn"] == "i3")
            #expect(try await c.findOne(["_id": .int64(4)])?["isbn"] == "i4")
            #expect(try await c.explain(["isbn": "i7"]).indexName == "isbn_1")
            #expect(try await c.explain(["_id": 7]).stage == "IDHACK")
        }
    }

    @Test(arguments: EngineKind.allCases) func indexChangesReplanCachedShapes(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.insertMany((0..<30).map { ["k": .int32(Int32($0)), "tag": .string("t\($0 % 3)")] })
            #expect(try await c.findOne(["k": 5])?["tag"] == "t2")
            #expect(try await c.explain(["k": 5]).stage == "COLLSCAN")

            try await c.createIndex(["k": -1])
            #expect(try await c.explain(["k": 6]).indexName == "k_-1")
            #expect(try await c.findOne(["k": 6])?["tag"] == "t0")

            // A plan through the dropped index would find nothing now.
            try await c.dropIndex("k_-1")
            #expect(try await c.explain(["k": 7]).stage == "COLLSCAN")
            #expect(try await c.findOne(["k": 7])?["tag"] == "t1")

            // A unique index goes before the compound one the shape used.
            try await c.createIndex(["k": 1, "tag": 1])
            #expect(try await c.explain(["k": 8]).indexName == "k_1_tag_1")
            try await c.createIndex(["k": 1], unique: true)
            #expect(try await c.explain(["k": 8]).indexName == "k_1")
            #expect(try await c.findOne(["k": 8])?["tag"] == "t2")
            try await c.dropIndex("k_1")
            #expect(try await c.explain(["k": 9]).indexName == "k_1_tag_1")
            #expect(try await c.findOne(["k": 9])?["tag"] == "t0")

            // A shape planned through an index, which then goes: its entries go with it.
            try await c.createIndex(["tag": 1])
            #expect(try await c.findOne(["tag": "t1"])?["k"] == 1)
            try await c.dropIndex("tag_1")
            #expect(try await c.findOne(["tag": "t1"])?["k"] == 1)
            #expect(try await c.countDocuments(["tag": "t1"]) == 10)
        }
    }

    @Test(arguments: EngineKind.allCases) func aDroppedOrRenamedCollectionsPlansGoWithIt(kind: EngineKind) async throws
    {
        try await withStore(kind) { store in
            let db = store.database("app")
            let c = db.collection("c")
            try await c.createIndex(["k": 1])
            try await c.insertMany((0..<10).map { ["k": .int32(Int32($0)), "gen": 1] })
            #expect(try await c.findOne(["k": 3])?["gen"] == 1)

            try await c.drop()
            #expect(try await c.findOne(["k": 3]) == nil)
            // Re-created under the same name, with an index of another id.
            try await c.createIndex(["other": 1])
            try await c.createIndex(["k": 1])
            try await c.insertMany((0..<10).map { ["k": .int32(Int32($0)), "gen": 2] })
            #expect(try await c.findOne(["k": 3])?["gen"] == 2)

            let renamed = try await c.rename(to: "d")
            #expect(try await renamed.findOne(["k": 4])?["gen"] == 2)
            #expect(try await renamed.explain(["k": 4]).indexName == "k_1")
            #expect(try await c.findOne(["k": 4]) == nil)
            try await c.insertOne(["k": 4, "gen": 3])
            #expect(try await c.explain(["k": 4]).stage == "COLLSCAN")
            #expect(try await c.findOne(["k": 4])?["gen"] == 3)

            try await db.drop()
            #expect(try await renamed.findOne(["k": 4]) == nil)
        }
    }

    @Test(arguments: EngineKind.allCases) func readsThroughACachedPlanSeeTheLatestWrites(kind: EngineKind) async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.createIndex(["email": 1])
            for i in 0..<20 {
                let email = BSON.string("u\(i)@example.com")
                #expect(try await c.findOne(["email": email]) == nil)
                try await c.insertOne(["_id": .int32(Int32(i)), "email": email])
                #expect(try await c.findOne(["email": email])?["_id"] == .int32(Int32(i)))
                try await c.updateOne(["_id": .int32(Int32(i))], ["$set": ["email": "moved"]])
                #expect(try await c.findOne(["email": email]) == nil)
                #expect(try await c.findOne(["_id": .int32(Int32(i))])?["email"] == "moved")
                try await c.deleteOne(["email": "moved"])
                #expect(try await c.findOne(["_id": .int32(Int32(i))]) == nil)
            }
        }
    }

    @Test(arguments: EngineKind.allCases) func fieldNamesAreMatchedByTheirBytes(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let composed = "caf\u{E9}"
            let decomposed = "cafe\u{301}"
            try await c.createIndex([composed: 1])
            try await c.insertOne(["_id": 1, composed: 1])
            try await c.insertOne(["_id": 2, decomposed: 1])
            // Swift calls the two names equal; MongoDB (and a document's keys) do not.
            for _ in 0..<2 {
                #expect(try await c.findOne([composed: 1])?["_id"] == 1)
                #expect(try await c.findOne([decomposed: 1])?["_id"] == 2)
            }
        }
    }

    @Test(arguments: EngineKind.allCases) func otherFiltersOnACachedFieldAreNotTakenForItsShape(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            try await c.createIndex(["a": 1])
            let two = BSON.decimal128(Decimal128("2")!)
            try await c.insertMany([
                ["_id": 1, "a": 1], ["_id": 2, "a": [1, 2]], ["_id": 3, "a": .null], ["_id": 4],
                ["_id": 5, "a": ["b": 1]], ["_id": 6, "a": "x"], ["_id": 7, "a": two],
            ])
            func ids(_ filter: BSONDocument) async throws -> [BSON] {
                try await c.find(filter, options: FindOptions(sort: ["_id": 1])).toArray().compactMap { $0["_id"] }
            }
            #expect(try await ids(["a": 1]) == [1, 2])
            #expect(try await ids(["a": .null]) == [3, 4])
            #expect(try await ids(["a": [1, 2]]) == [2])
            #expect(try await ids(["a": ["b": 1]]) == [5])
            #expect(try await ids(["a": ["$gt": 1]]) == [2, 7])
            #expect(try await ids(["a": .regex(BSONRegularExpression(pattern: "^x", options: ""))]) == [6])
            #expect(try await ids(["a": two]) == [2, 7])
            #expect(try await ids(["a": 2]) == [2, 7])
            #expect(try await ids(["a": "x"]) == [6])
            #expect(try await ids(["a": 1, "_id": 2]) == [2])
            #expect(try await ids(["_id": 2, "a": 1]) == [2])
        }
    }

    @Test(arguments: EngineKind.allCases) func moreShapesThanTheCacheHoldsAllStayCorrect(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let fields = (0..<(QueryPlanCache.capacity + 8)).map { "f\($0)" }
            for field in fields.prefix(10) { try await c.createIndex([field: 1]) }
            var document: BSONDocument = ["_id": 1]
            for (i, field) in fields.enumerated() { document[field] = .int32(Int32(i)) }
            try await c.insertOne(document)
            for _ in 0..<2 {
                for (i, field) in fields.enumerated() {
                    #expect(try await c.findOne([field: .int32(Int32(i))])?["_id"] == 1)
                    #expect(try await c.findOne([field: .int32(Int32(i + 1))]) == nil)
                }
            }
        }
    }
}
