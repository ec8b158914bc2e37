import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

/// What one client's `mongodb-atlas` call may cost the server: a catastrophic `$regex` answers MongoDB's error,
/// reads run off the server's threads and within a time budget, and updates cannot grow documents past MongoDB's
/// limits.
@Suite(.timeLimit(.minutes(2))) struct MongoServiceCallLimitsTests {
    static let namespace = #""database": "app", "collection": "texts""#

    static func withApp<Result>(
        queries: ClientAPI.Configuration = .init(), _ body: (ServedApp) async throws -> Result
    ) async throws -> Result {
        try await ServedApp.with(FunctionRegistry(), queries: queries, body)
    }

    @Test func eightCatastrophicRegexesAnswerMongoDBsErrorWhileLocationIsAnswered() async throws {
        try await Self.withApp { served in
            let token = try await served.loginAnonymously().accessToken
            let subject = String(repeating: "a", count: 26) + "!"
            _ = try await served.atlas(
                "insertOne", #"{\#(Self.namespace), "document": {"text": "\#(subject)"}}"#, token: token)
            let pattern = #"{"$regex": "(.*a){20}$"}"#
            async let answers = withThrowingTaskGroup(of: HTTPResponse.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await served.call(
                            "find", #"[{\#(Self.namespace), "query": {"text": \#(pattern)}}]"#,
                            service: "mongodb-atlas",
                            token: token)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let location = try await served.get("\(served.appBase)/location")
            #expect(location.status == 200)
            for answer in try await answers {
                #expect(answer.status == 400)
                #expect(answer.errorCode == "MongoDBError")
                #expect(answer.errorMessage?.contains("match limit exceeded") == true, "\(answer.text)")
            }
        }
    }

    @Test func locationIsAnsweredWhileEveryServiceReadIsInFlight() async throws {
        let gate = GatedExecutor()
        try await Self.withApp(queries: .init(queryExecutor: gate)) { served in
            let token = try await served.loginAnonymously().accessToken
            _ = try await served.app.store.database("app").collection("texts").insertOne(["text": "a"])
            // More reads than the server has threads: run on those threads, they would leave none for `location`.
            let reads = 2 * served.server.http.configuration.threads
            async let answers = withThrowingTaskGroup(of: HTTPResponse.self) { group in
                for _ in 0..<reads {
                    group.addTask {
                        try await served.call(
                            "find", #"[{\#(Self.namespace), "query": {}}]"#, service: "mongodb-atlas", token: token)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try await gate.waitForJobs(reads)
            let location = try await served.get("\(served.appBase)/location")
            #expect(location.status == 200)
            gate.open()
            let answered = try await answers
            #expect(answered.count == reads)
            #expect(answered.allSatisfy { $0.status == 200 })
        }
    }

    @Test func readsAreHeldToTheServersDefaultBudgetOrTheClientsMaxTimeMS() async throws {
        try await Self.withApp(queries: .init(queryTimeLimit: .zero)) { served in
            let token = try await served.loginAnonymously().accessToken
            _ = try await served.app.store.database("app").collection("texts").insertOne(["text": "a"])
            for (action, extra) in [("find", ""), ("findOne", ""), ("count", ""), ("aggregate", #", "pipeline": []"#)] {
                let expired = try await served.call(
                    action, #"[{\#(Self.namespace), "query": {}\#(extra)}]"#, service: "mongodb-atlas", token: token)
                #expect(expired.status == 400, "\(action)")
                #expect(expired.errorMessage == "\(action): operation exceeded time limit", "\(expired.text)")
            }
            let found = try await served.atlas(
                "find", #"{\#(Self.namespace), "query": {}, "maxTimeMS": 600000}"#, token: token)
            #expect(found.arrayValue?.count == 1)
        }
    }

    @Test func updatesThatWouldGrowDocumentsPastMongoDBsLimitsAreRefused() async throws {
        try await Self.withApp { served in
            let token = try await served.loginAnonymously().accessToken
            let documents = (1...5).map { #"{"_id": \#($0), "arr": [], "other": []}"# }.joined(separator: ", ")
            _ = try await served.atlas(
                "insertMany", #"{\#(Self.namespace), "documents": [\#(documents)]}"#, token: token)
            func updateMany(_ set: String) async throws -> HTTPResponse {
                try await served.call(
                    "updateMany", #"[{\#(Self.namespace), "query": {}, "update": {"$set": \#(set)}}]"#,
                    service: "mongodb-atlas", token: token)
            }
            let backfill = try await updateMany(#"{"arr.2000000": 1}"#)
            #expect(backfill.status == 400)
            #expect(backfill.errorMessage == "updateMany: can't backfill more than 1500000 elements")
            let tooLarge = try await updateMany(#"{"arr.1400000": 1, "other.1400000": 1}"#)
            #expect(tooLarge.status == 400)
            #expect(tooLarge.errorMessage == "updateMany: Resulting document after update is larger than 16777216")
            // Nothing was changed, and other writes go on.
            let unchanged = try await served.atlas(
                "count", #"{\#(Self.namespace), "query": {"arr": []}}"#, token: token)
            #expect(unchanged == .int64(5))
            let written = try await served.atlas(
                "updateMany", #"{\#(Self.namespace), "query": {}, "update": {"$set": {"seen": true}}}"#, token: token)
            #expect(written.documentValue?["modifiedCount"] == .int32(5))
        }
    }
}
