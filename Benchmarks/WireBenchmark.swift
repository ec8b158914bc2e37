import Foundation
import TestSupport

/// pymongo against `switchyard serve`'s MongoDB wire protocol beside psycopg against PostgreSQL 15 (a throwaway
/// server started here with PostgreSQL's own durability: `fsync` and `synchronous_commit` on), both driven from the
/// same Python process shape (`Benchmarks/wire/wire_load.py`): `insert_one` of a tutorial book beside an `INSERT`
/// of it as JSONB, `find_one({_id})` beside a primary-key `SELECT`, each with 1 and 64 client threads; then a change
/// stream's event after the insert that made it.
///
/// Serve's default store is SQLite with `synchronous=normal` (an acknowledged write survives the process, not a
/// power loss), so the same load also runs against a second `serve --store postgresql://…` on the same durable
/// PostgreSQL: that line is the same durability as the peer's. Rounds alternate the three, medians count.
enum WireBenchmark {
    static let benchmark = Benchmark(
        name: "wire", summary: "pymongo against serve's MongoDB port vs psycopg against PostgreSQL; change stream p99",
        run: run)

    static let rounds = 3
    static let seconds = 3
    static let changeEvents = 2_000
    static let script =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/wire/wire_load.py"

    static func run() async throws {
        guard let python = ProcessInfo.processInfo.environment["SWITCHYARD_BENCH_PYTHON"] else {
            throw BenchmarkFailure("SWITCHYARD_BENCH_PYTHON names no Python (run it through `make bench`)")
        }
        let versions: String
        do {
            versions = try runCommand(
                python,
                ["-c", "import pymongo, psycopg; print('pymongo', pymongo.version, 'psycopg', psycopg.__version__)"])
        } catch {
            throw BenchmarkFailure("the bench venv lacks pymongo or psycopg (Benchmarks/push/make-venv.sh): \(error)")
        }
        let directory = try makeScratchDirectory("wire-bench")
        defer { removeScratchDirectory(directory) }
        let postgres = try await offPool { try PostgreSQLServer.durable() }
        defer { postgres.stop() }
        let peer = try postgres.database("peer")
        let executable =
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/switchyard"
        let onSQLite = try Served(executable: executable, data: "\(directory)/sqlite", store: nil)
        defer { onSQLite.child.kill() }
        let onPostgreSQL = try Served(
            executable: executable, data: "\(directory)/postgresql", store: try postgres.database("served"))
        defer { onPostgreSQL.child.kill() }

        print(
            "wire: \(versions.trimmingCharacters(in: .whitespacesAndNewlines)), one Python process, \(seconds) s a round,"
                + " \(rounds) alternating rounds, medians; PostgreSQL 15 with fsync and synchronous_commit on")
        let cases: [(operation: String, clients: Int, ours: String, theirs: String)] = [
            ("insert", 1, "insert_one", "INSERT jsonb"), ("insert", 64, "insert_one", "INSERT jsonb"),
            ("find", 1, "find_one({_id})", "SELECT by key"), ("find", 64, "find_one({_id})", "SELECT by key"),
        ]
        for item in cases {
            var sqlite: [Double] = []
            var served: [Double] = []
            var raw: [Double] = []
            for round in 0..<rounds {
                sqlite.append(try await rate(python, "mongo", onSQLite.uri, item.operation, item.clients))
                served.append(try await rate(python, "mongo", onPostgreSQL.uri, item.operation, item.clients))
                raw.append(try await rate(python, "postgresql", peer, item.operation, item.clients))
                print(
                    "  \(item.ours), \(item.clients) client\(item.clients == 1 ? "" : "s"), round \(round + 1):"
                        + " serve \(format(sqlite[round]))/s, serve --store postgresql \(format(served[round]))/s,"
                        + " PostgreSQL \(format(raw[round]))/s")
            }
            let ratio = median(sqlite) / median(raw)
            let sameDurability = median(served) / median(raw)
            print(
                "\(item.ours) × \(item.clients) client\(item.clients == 1 ? "" : "s"): serve \(format(median(sqlite)))/s"
                    + " | PostgreSQL \(item.theirs) \(format(median(raw)))/s | \(format(ratio, 2))×"
                    + " | goal ≥ 1×: \(ratio >= 1 ? "met" : "NOT met")"
                    + " | serve --store postgresql (same durability) \(format(median(served)))/s,"
                    + " \(format(sameDurability, 2))×: \(sameDurability >= 1 ? "met" : "NOT met")")
        }
        for (name, side) in [("serve", onSQLite), ("serve --store postgresql", onPostgreSQL)] {
            let uri = side.uri
            let output = try await offPool {
                try runCommand(python, [script, "mongo", uri, "change-stream", "\(changeEvents)"])
            }
            let fields = try numbers(output, ["p50", "p99", "insert-p99"])
            print(
                "change stream (\(name)), one watcher, \(changeEvents) inserts one at a time, from insert_one's start"
                    + " to the event read: p50 \(format(fields[0], 2)) ms, p99 \(format(fields[1], 2)) ms"
                    + " (insert_one alone p99 \(format(fields[2], 2)) ms) | goal p99 ≤ 2 ms:"
                    + " \(fields[1] <= 2 ? "met" : "NOT met")")
        }
    }

    /// One `switchyard serve` of the example app with its MongoDB port, on SQLite in `data` or on `store`.
    private struct Served {
        let child: ChildProcess
        let uri: String

        init(executable: String, data: String, store: String?) throws {
            let port = closedLoopbackPort()
            child = try ChildProcess(
                name: "switchyard serve", executable: executable,
                arguments: [
                    "serve", "--config", ".", "--data-dir", data, "--port", "\(closedLoopbackPort())",
                    "--mongodb-port", "\(port)",
                ] + (store.map { ["--store", $0] } ?? []))
            guard waitUntilListening(port) else { throw BenchmarkFailure("switchyard serve did not listen on \(port)") }
            uri = "mongodb://127.0.0.1:\(port)/?directConnection=true"
        }
    }

    /// Operations a second of one run of the Python client.
    private static func rate(_ python: String, _ kind: String, _ target: String, _ operation: String, _ clients: Int)
        async throws -> Double
    {
        let output = try await offPool {
            try runCommand(python, [script, kind, target, operation, "\(clients)", "\(seconds)"])
        }
        let fields = try numbers(output, ["ops", "seconds", "errors"])
        guard fields[2] == 0 else { throw BenchmarkFailure("\(kind) \(operation) failed:\n\(output)") }
        return fields[0] / fields[1]
    }

    /// The numbers after `names` in the client's last line (`ops 123 seconds 3.0 errors 0`).
    private static func numbers(_ output: String, _ names: [String]) throws -> [Double] {
        let words = output.split(whereSeparator: \.isNewline).last?.split(separator: " ").map(String.init) ?? []
        return try names.map { name in
            guard let index = words.firstIndex(of: name), index + 1 < words.count,
                let value = Double(words[index + 1])
            else { throw BenchmarkFailure("the wire client printed no \(name):\n\(output)") }
            return value
        }
    }

    private static func format(_ value: Double, _ digits: Int = 0) -> String {
        String(format: "%.\(digits)f", value)
    }
}
