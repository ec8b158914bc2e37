import BSON
import DocumentStore
import Testing

/// Stages built on the query engine's `QueryFilter` and `SortSpecification`, and the tutorial's favourites query.
@Suite struct PipelineQueryTests {
    @Test func matchFiltersWithQueryOperatorsAndExpr() throws {
        let input: [BSONDocument] = [
            ["_id": 1, "status": "A", "qty": 5, "max": 10], ["_id": 2, "status": "A", "qty": 50, "max": 10],
            ["_id": 3, "status": "B", "qty": 50, "max": 10], ["_id": 4, "status": "A", "qty": 20, "max": 30],
        ]
        let byQuery = try aggregate([["$match": ["status": "A", "qty": ["$gt": 10]]]], input)
        #expect(byQuery.map { $0["_id"] } == [2, 4])
        let both = try aggregate(
            [["$match": ["status": "A", "$expr": ["$gt": ["$qty", "$max"]]]]], input)
        #expect(both.map { $0["_id"] } == [2])
    }

    @Test func sortOrdersByKeysAndKeepsTiesInInputOrder() throws {
        let input: [BSONDocument] = [
            ["_id": 1, "k": 2], ["_id": 2, "k": 1], ["_id": 3, "k": 2], ["_id": 4], ["_id": 5, "k": 1.5],
        ]
        #expect(try aggregate([["$sort": ["k": 1]]], input).map { $0["_id"] } == [4, 2, 5, 1, 3])
        #expect(try aggregate([["$sort": ["k": -1, "_id": -1]]], input).map { $0["_id"] } == [3, 1, 5, 2, 4])
        #expect(aggregationFailure([["$sort": 1]])?.code == 15973)
    }

    /// The books-and-favourites tutorial: when a book changes, find the users who marked it as a favourite
    /// and collect what the push message needs (their FCM tokens, the book's title).
    @Test func favoriteBookChangeFindsFansAndTheirTokens() throws {
        let dune = ObjectId(hex: "64b000000000000000000001")!
        let emma = ObjectId(hex: "64b000000000000000000002")!
        let books: [BSONDocument] = [
            ["_id": .objectId(dune), "title": "Dune", "author": "Frank Herbert"],
            ["_id": .objectId(emma), "title": "Emma", "author": "Jane Austen"],
        ]
        let users: [BSONDocument] = [
            ["_id": "user-1", "favoriteBooks": [.objectId(dune), .objectId(emma)], "FCMToken": ["t1", "t2"]],
            ["_id": "user-2", "favoriteBooks": [.objectId(emma)], "FCMToken": ["t3"]],
            ["_id": "user-3", "favoriteBooks": [.objectId(dune)], "FCMToken": []],
            ["_id": "user-4", "FCMToken": ["t4"]],
        ]
        let source = MemorySource(collections: ["book": books, "customUserData": users])
        let pipeline: [BSONDocument] = [
            ["$match": ["favoriteBooks": .objectId(dune)]],
            [
                "$lookup": [
                    "from": "book", "let": ["changed": .objectId(dune)],
                    "pipeline": [
                        ["$match": ["$expr": ["$eq": ["$_id", "$$changed"]]]], ["$project": ["_id": 0, "title": 1]],
                    ],
                    "as": "book",
                ]
            ],
            ["$unwind": "$book"],
            ["$replaceRoot": ["newRoot": ["$mergeObjects": ["$book", ["userId": "$_id", "tokens": "$FCMToken"]]]]],
            ["$project": ["userId": 1, "title": 1, "tokens": 1, "tokenCount": ["$size": "$tokens"]]],
        ]
        let output = try Pipeline(pipeline).run(users, source: source)
        #expect(
            output == [
                ["title": "Dune", "userId": "user-1", "tokens": ["t1", "t2"], "tokenCount": 2],
                ["title": "Dune", "userId": "user-3", "tokens": [], "tokenCount": 0],
            ])
    }
}
