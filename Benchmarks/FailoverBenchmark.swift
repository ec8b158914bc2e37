import BSON
import Foundation
import Messaging
import TestSupport

/// Trigger failover on PostgreSQL: three `switchyard serve` nodes of the example app on one throwaway database
/// (`fsync=off`); each round kills the node holding the ordered database trigger `onBookPushNotification` with
/// SIGKILL, adds a book through another node at once, and measures from the kill to the first delivery after it,
/// which only another node can make (the time the outbox recorded the trigger's message, on the same machine's
/// clock). The killed node is started again before the next round. Goal: max ≤ 2 s.
enum FailoverBenchmark {
    static let benchmark = Benchmark(
        name: "failover", summary: "kill -9 of a trigger's lease holder to the next event delivered by another node",
        run: run)

    static let rounds = 20
    static let trigger = "onBookPushNotification"

    struct Node {
        var server: ChildProcess
        var root: String
        var token: String
        let directory: String
        let name: String
    }

    static func run() async throws {
        let postgres = try await offPool { try PostgreSQLServer.shared() }
        let url = try await offPool { try postgres.database("failover_bench") }
        let scratch = try makeScratchDirectory("failover-bench")
        defer { removeScratchDirectory(scratch) }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/switchyard"
        let client = try HTTPClient()
        var nodes: [Node] = []
        defer { for node in nodes { node.server.kill() } }
        for index in 0..<3 {
            nodes.append(
                try await start(
                    name: "n\(index)", directory: "\(scratch)/n\(index)", executable: executable, url: url,
                    client: client))
        }
        var windows: [Double] = []
        for _ in 0..<rounds {
            let holder = try await self.holder(of: nodes, client: client)
            let survivor = nodes[(holder + 1) % nodes.count]
            let killed = Date()
            nodes[holder].server.kill()
            let book = ObjectId().hex
            let added = try await client.post(
                url: "\(survivor.root)/admin/v1/databases/product/collections/book/documents",
                body: Array(#"{"_id":{"$oid":"\#(book)"},"_partition":"PUBLIC","volumeInfo":{"title":"x"}}"#.utf8),
                headers: ["Authorization": "Bearer \(survivor.token)", "Content-Type": "application/json"])
            guard added.status == 201 else { throw BenchmarkFailure("adding a book failed: \(added.text)") }
            let delivered = try await firstDelivery(after: killed, through: survivor, client: client)
            windows.append(delivered.timeIntervalSince(killed))
            let restarted = nodes[holder]
            nodes[holder] = try await start(
                name: restarted.name, directory: restarted.directory, executable: executable, url: url,
                client: client)
        }
        let p50 = median(windows)
        let worst = windows.max() ?? 0
        print(
            "failover: kill -9 of the trigger's holder to the next delivery by another node, \(rounds) rounds:"
                + " p50 \(milliseconds(p50)) ms, max \(milliseconds(worst)) ms | goal max ≤ 2000 ms:"
                + " \(worst <= 2 ? "met" : "NOT met")")
    }

    private static func milliseconds(_ seconds: Double) -> String { String(format: "%.0f", seconds * 1000) }

    private static func start(name: String, directory: String, executable: String, url: String, client: HTTPClient)
        async throws -> Node
    {
        let port = closedLoopbackPort()
        let server = try ChildProcess(
            name: name, executable: executable,
            arguments: [
                "serve", "--config", ".", "--data-dir", directory, "--port", "\(port)", "--store", url,
                "--mongodb-port", "0", "--node-name", name,
            ])
        let root = "http://127.0.0.1:\(port)"
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            // The admin token may be written a moment after the first request is answered.
            if let response = try? await client.get(url: "\(root)/api/client/v2.0/app/switchyard-app/location"),
                response.status == 200,
                let token = try? String(contentsOfFile: "\(directory)/admin.token", encoding: .utf8)
            {
                return Node(
                    server: server, root: root, token: token.trimmingCharacters(in: .whitespacesAndNewlines),
                    directory: directory, name: name)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchmarkFailure("\(name) did not serve within 30 s")
    }

    /// The node whose own status says it runs the trigger.
    private static func holder(of nodes: [Node], client: HTTPClient) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            for (index, node) in nodes.enumerated() {
                let response = try? await client.get(
                    url: "\(node.root)/admin/v1/triggers/\(trigger)", headers: ["Authorization": "Bearer \(node.token)"]
                )
                guard let response, response.status == 200, let status = try? ExtendedJSON.parseDocument(response.text)
                else { continue }
                if status["state"]?.stringValue == "running", status["node"]?.stringValue == node.name { return index }
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchmarkFailure("no node runs \(trigger)")
    }

    /// When the outbox recorded its first message after `time`.
    private static func firstDelivery(after time: Date, through node: Node, client: HTTPClient) async throws -> Date {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let response = try await client.get(
                url: "\(node.root)/admin/v1/outbox?limit=20", headers: ["Authorization": "Bearer \(node.token)"])
            let messages = try ExtendedJSON.parseDocument(response.text)["messages"]?.arrayValue ?? []
            let times = messages.compactMap { message -> Date? in
                guard case .datetime(let recorded)? = message.documentValue?["time"] else { return nil }
                return recorded.date
            }
            if let first = times.filter({ $0 > time }).min() { return first }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw BenchmarkFailure("no delivery within 30 s of the kill")
    }
}
