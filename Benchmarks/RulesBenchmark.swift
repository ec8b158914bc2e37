import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import SwitchyardServer

/// What data access rules cost a served call: `functions/call` of a `mongodb-atlas` `findOne` by `_id`, over real
/// HTTP on loopback, through a rule whose document filter is `{owner: "%%user.id"}` and through a rule that lets
/// every user read everything, in the same run and the same server. Goal: the first at least 0.7× the second's
/// rate.
enum RulesBenchmark {
    static let benchmark = Benchmark(
        name: "rules", summary: "findOne by _id through a %%user.id document filter vs an open rule", run: run)

    static let calls = 2_000
    static let rounds = 5

    static func run() async throws {
        let served = try await ServedBenchApp.start(
            rules: """
                rules:
                  collections:
                    - database: bench
                      collection: owned
                      roles:
                        - {name: owner, apply_when: {}, document_filters: {read: {owner: "%%user.id"}}, read: true}
                    - database: bench
                      collection: open
                      roles:
                        - {name: everyone, apply_when: {}, read: true}
                """)
        let (app, client, base, token, user) = (served.app, served.client, served.base, served.token, served.userId)
        for name in ["owned", "open"] {
            let collection = app.store.database("bench").collection(name)
            try await collection.insertMany((0..<1_000).map { ["_id": .string("other-\($0)"), "owner": "someone"] })
            try await collection.insertOne(["_id": .string(user), "owner": .string(user), "name": "mine"])
        }
        func rate(_ collection: String) async throws -> Double {
            let body = Array(
                #"{"name": "findOne", "service": "mongodb-atlas", "arguments": [{"database": "bench", "collection": "\#(collection)", "query": {"_id": "\#(user)"}}]}"#
                    .utf8)
            let headers: HTTPHeaders = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
            let start = ContinuousClock.now
            for _ in 0..<calls {
                let response = try await client.post(url: "\(base)/functions/call", body: body, headers: headers)
                guard response.status == 200, response.text.contains("mine") else {
                    throw BenchmarkFailure("findOne on \(collection) answered \(response.status): \(response.text)")
                }
            }
            return Double(calls) / Timing.seconds(ContinuousClock.now - start)
        }
        // Alternating rounds, the best of each, so neither side gets the quieter moments of the machine.
        var ruled = 0.0
        var open = 0.0
        for _ in 0..<rounds {
            ruled = max(ruled, try await rate("owned"))
            open = max(open, try await rate("open"))
        }
        let ratio = ruled / open
        print(
            "rules: findOne by _id through {owner: %%user.id} \(Int(ruled)) calls/s, open rule \(Int(open)) calls/s:"
                + " \(String(format: "%.2f", ratio))× | goal ≥ 0.7×: \(ratio >= 0.7 ? "met" : "NOT met")")
        await served.stop()
    }
}
