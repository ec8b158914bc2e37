import BSON
import Foundation
import Messaging
import TestSupport

/// `switchyard serve` with the example app: `functions/call` of a no-op function with a valid token under
/// wrk (64 connections), beside nginx answering `return 200` and functions-framework serving the same no-op,
/// all in this run; then cold start to the first served request and idle RSS. The trivial `GET location` route
/// under the same load shows what the HTTP layer alone costs.
///
/// Throughput on a small virtual machine moves by a quarter between identical runs, nginx's as much as ours, so
/// switchyard and nginx are loaded in turns, `rounds` times each (the other idle meanwhile), and compared by their
/// medians; every round is printed.
enum ServeBenchmark {
    static let benchmark = Benchmark(
        name: "serve", summary: "switchyard serve under wrk vs nginx and functions-framework; cold start, idle RSS",
        run: run)

    static func run() async throws {
        let directory = try makeScratchDirectory("serve-bench")
        defer { removeScratchDirectory(directory) }
        let executables = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let call = #"{"name":"ping","arguments":[]}"#
        let wrk = Wrk()
        print("serve: wrk -t\(wrk.threads) -c\(wrk.connections) -d\(wrk.duration)s, POST functions/call of a no-op")

        // Cold start: from spawning the process to the first answered request.
        let port = closedLoopbackPort()
        let started = ContinuousClock.now
        let serve = try ChildProcess(
            name: "switchyard serve", executable: "\(executables)/switchyard",
            arguments: ["serve", "--config", ".", "--data-dir", "\(directory)/data", "--port", "\(port)"])
        let client = try HTTPClient()
        let base = "http://127.0.0.1:\(port)/api/client/v2.0/app/switchyard-app"
        var coldStart: Duration?
        while ContinuousClock.now - started < .seconds(30) {
            if let response = try? await client.get(url: "\(base)/location"), response.status == 200 {
                coldStart = ContinuousClock.now - started
                break
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        guard let coldStart else { throw BenchmarkFailure("switchyard serve did not answer within 30 s") }
        try await Task.sleep(for: .seconds(1))
        let idle = serve.memory()
        let login = try await client.post(url: "\(base)/auth/providers/anon-user/login", body: Array("{}".utf8))
        guard let token = login.json?.documentValue?["access_token"]?.stringValue else {
            throw BenchmarkFailure("anonymous login failed: \(login.status) \(login.text)")
        }
        let nginx = try NginxPeer(directory: directory, body: "[]")
        var roundsOfOurs: [Wrk.Result] = []
        var roundsOfNginx: [Wrk.Result] = []
        for _ in 0..<rounds {
            roundsOfOurs.append(
                try wrk.run(
                    url: "\(base)/functions/call", method: "POST", body: call,
                    headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                    directory: directory))
            roundsOfNginx.append(
                try wrk.run(url: "http://127.0.0.1:\(nginx.port)/", method: "POST", body: call, directory: directory))
        }
        nginx.stop()
        let ours = Wrk.Result.median(of: roundsOfOurs)
        let nginxResult = Wrk.Result.median(of: roundsOfNginx)
        let loaded = serve.memory()
        // The HTTP layer alone: the trivial route that answers without a task.
        let location = try wrk.run(url: "\(base)/location", directory: directory)
        serve.kill()

        let framework = try FunctionsFrameworkPeer(directory: directory, venv: ".build/bench-venv")
        let frameworkResult = try wrk.run(
            url: "http://127.0.0.1:\(framework.port)/", method: "POST", body: call, directory: directory)
        framework.stop()

        func line(_ name: String, _ result: Wrk.Result) -> String {
            "  \(name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(format(result.requestsPerSecond, 0)) req/s  p50 \(format(result.p50Milliseconds, 2)) ms  p99 \(format(result.p99Milliseconds, 2)) ms\(result.errors > 0 ? "  (\(result.errors) errors)" : "")"
        }
        for (index, (round, peer)) in zip(roundsOfOurs, roundsOfNginx).enumerated() {
            print(
                "  round \(index + 1): switchyard \(format(round.requestsPerSecond, 0)) req/s, nginx \(format(peer.requestsPerSecond, 0)) req/s (\(format(round.requestsPerSecond / peer.requestsPerSecond, 2))×)"
                    + (round.errors + peer.errors > 0 ? "  (\(round.errors + peer.errors) errors)" : "")
            )
        }
        print(line("switchyard serve", ours) + "  (median of \(rounds))")
        print(line("nginx return 200", nginxResult) + "  (median of \(rounds))")
        print(line("functions-framework", frameworkResult))
        print(line("switchyard location", location))
        print(
            "  vs nginx \(format(ours.requestsPerSecond / nginxResult.requestsPerSecond, 2))× (goal ≥ 0.5×), vs functions-framework \(format(ours.requestsPerSecond / frameworkResult.requestsPerSecond, 1))× (goal ≥ 10×)"
        )
        print(
            "  HTTP layer alone (GET location) vs nginx \(format(location.requestsPerSecond / nginxResult.requestsPerSecond, 2))×"
        )
        print("  cold start to first served request \(format(Timing.seconds(coldStart) * 1000, 1)) ms (goal ≤ 150 ms)")
        if let idle, let loaded {
            print(
                "  RSS idle \(format(idle.resident, 1)) MB (goal ≤ 30 MB), after load \(format(loaded.resident, 1)) MB, peak \(format(loaded.peak, 1)) MB"
            )
        }
    }

    /// Turns each of switchyard and nginx is loaded.
    static let rounds = 3

    private static func format(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }
}
