import BSON
import Switchyard
import Testing

@testable import SwitchyardServer

/// Every option the Realm SDKs' `MongoCollection` sends with a `mongodb-atlas` action (realm-core's
/// `mongo_collection.cpp`, realm-js's `MongoDBCollection`), over HTTP, each one seen to change the answer.
@Suite(.timeLimit(.minutes(1))) struct MongoServiceCallArgumentsTests {
    static let namespace = #""database": "school", "collection": "students""#

    /// Runs `body` with a logged-in user's `mongodb-atlas` caller and three students with grades.
    static func withStudents(_ body: (_ atlas: (String, String) async throws -> BSON) async throws -> Void)
        async throws
    {
        try await ServedApp.with(FunctionRegistry()) { served in
            let token = try await served.loginAnonymously().accessToken
            let atlas = { (action: String, argument: String) in
                try await served.atlas(action, "{\(namespace), \(argument)}", token: token)
            }
            _ = try await atlas(
                "insertMany",
                #""documents": [{"_id": 1, "name": "ada", "grades": [95, 80, 100]}, {"_id": 2, "name": "bob", "grades": [70, 100]}, {"_id": 3, "name": "cy", "grades": [60]}]"#
            )
            try await body(atlas)
        }
    }

    @Test func updateOneAppliesArrayFilters() async throws {
        try await Self.withStudents { atlas in
            let result = try await atlas(
                "updateOne",
                #""query": {"_id": 1}, "update": {"$set": {"grades.$[high]": 90}}, "arrayFilters": [{"high": {"$gte": 95}}]"#
            )
            #expect(result == ["matchedCount": .int32(1), "modifiedCount": .int32(1)])
            let ada = try await atlas("findOne", #""query": {"_id": 1}"#)
            #expect(ada.documentValue?["grades"] == [.int32(90), .int32(80), .int32(90)])
        }
    }

    @Test func updateManyAppliesArrayFiltersToEveryMatch() async throws {
        try await Self.withStudents { atlas in
            let result = try await atlas(
                "updateMany",
                #""query": {}, "update": {"$inc": {"grades.$[perfect]": -1}}, "arrayFilters": [{"perfect": 100}], "upsert": false"#
            )
            #expect(result == ["matchedCount": .int32(3), "modifiedCount": .int32(2)])
            let grades = try await atlas(
                "find", #""query": {}, "project": {"_id": 0, "grades": 1}, "sort": {"_id": 1}"#)
            #expect(
                grades == [
                    ["grades": [.int32(95), .int32(80), .int32(99)]], ["grades": [.int32(70), .int32(99)]],
                    ["grades": [.int32(60)]],
                ])
        }
    }

    @Test func findOneAndUpdateAppliesArrayFilters() async throws {
        try await Self.withStudents { atlas in
            let after = try await atlas(
                "findOneAndUpdate",
                #""filter": {"_id": 2}, "update": {"$set": {"grades.$[low]": 75}}, "arrayFilters": [{"low": {"$lt": 75}}], "returnNewDocument": true"#
            )
            #expect(after.documentValue?["grades"] == [.int32(75), .int32(100)])
        }
    }

    @Test func arrayFiltersThatAreNotDocumentsAreRefused() async throws {
        try await ServedApp.with(FunctionRegistry()) { served in
            let token = try await served.loginAnonymously().accessToken
            let response = try await served.call(
                "updateOne",
                #"[{\#(Self.namespace), "query": {}, "update": {"$set": {"a.$[x]": 1}}, "arrayFilters": [1]}]"#,
                service: "mongodb-atlas", token: token)
            #expect(response.status == 400)
            #expect(response.errorCode == "InvalidParameter")
            #expect(response.errorMessage == "updateOne: every entry of 'arrayFilters' must be a document")
        }
    }

    @Test func countStopsAtItsLimit() async throws {
        try await Self.withStudents { atlas in
            let capped = try await atlas("count", #""query": {}, "limit": 2"#)
            #expect(capped == .int64(2))
            #expect(try await atlas("count", #""query": {"_id": {"$gt": 0}}"#) == .int64(3))
        }
    }

    @Test func findOneTakesSortAndProjection() async throws {
        try await Self.withStudents { atlas in
            let last = try await atlas(
                "findOne", #""query": {}, "sort": {"name": -1}, "project": {"_id": 0, "name": 1}"#)
            #expect(last == ["name": "cy"])
        }
    }

    @Test func findOneAndUpdateUpsertsAndTakesTheFirstInSortOrder() async throws {
        try await Self.withStudents { atlas in
            let before = try await atlas(
                "findOneAndUpdate", #""filter": {}, "update": {"$set": {"first": true}}, "sort": {"_id": -1}"#)
            #expect(before.documentValue?["_id"] == .int32(3))
            #expect(before.documentValue?["first"] == nil)
            let upserted = try await atlas(
                "findOneAndUpdate",
                #""filter": {"name": "dee"}, "update": {"$set": {"grades": []}}, "upsert": true, "returnNewDocument": true, "projection": {"_id": 0}"#
            )
            #expect(upserted == ["name": "dee", "grades": []])
        }
    }

    @Test func findOneAndReplaceUpsertsAndReturnsTheNewDocument() async throws {
        try await Self.withStudents { atlas in
            let replaced = try await atlas(
                "findOneAndReplace",
                #""filter": {"name": "bob"}, "update": {"name": "bob", "grades": [1]}, "returnNewDocument": true"#)
            #expect(replaced == ["_id": .int32(2), "name": "bob", "grades": [.int32(1)]])
            let upserted = try await atlas(
                "findOneAndReplace",
                #""filter": {"_id": 9}, "update": {"name": "eve"}, "upsert": true, "returnNewDocument": true"#)
            #expect(upserted == ["_id": .int32(9), "name": "eve"])
        }
    }

    @Test func findOneAndDeleteTakesSortAndProjection() async throws {
        try await Self.withStudents { atlas in
            let removed = try await atlas(
                "findOneAndDelete", #""filter": {}, "sort": {"_id": -1}, "projection": {"name": 1}"#)
            #expect(removed == ["_id": .int32(3), "name": "cy"])
            #expect(try await atlas("count", #""query": {}"#) == .int64(2))
        }
    }
}
