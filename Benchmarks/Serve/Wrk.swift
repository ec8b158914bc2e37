import Foundation

/// Load from a second process: wrk (Debian) with 2 threads, reporting requests/s and latency percentiles.
struct Wrk {
    struct Result {
        var requestsPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var errors: Int
    }

    var connections = 64
    var duration = 10
    var threads = 2

    /// Loads `url`; a POST with `body` and `headers` when a body is given.
    func run(
        url: String, method: String = "GET", body: String? = nil, headers: [String: String] = [:],
        directory: String
    ) throws -> Result {
        var arguments = ["-t\(threads)", "-c\(connections)", "-d\(duration)s", "--latency"]
        if body != nil || !headers.isEmpty || method != "GET" {
            let script = "\(directory)/wrk-\(UUID().uuidString).lua"
            var lua = "wrk.method = \"\(method)\"\n"
            if let body { lua += "wrk.body = [==[\(body)]==]\n" }
            for (name, value) in headers { lua += "wrk.headers[\"\(name)\"] = \"\(value)\"\n" }
            // Count non-2xx answers so a refused token does not pass for speed.
            lua += """
                local bad = 0
                response = function(status, headers, body) if status >= 300 then bad = bad + 1 end end
                done = function(summary, latency, requests) io.write(string.format("non-2xx %d\\n", bad)) end

                """
            try lua.write(toFile: script, atomically: true, encoding: .utf8)
            arguments += ["-s", script]
        }
        let output = try runCommand("/usr/bin/wrk", arguments + [url])
        return try Self.parse(output)
    }

    static func parse(_ output: String) throws -> Result {
        func number(after label: String) -> Double? {
            guard
                let line = output.split(separator: "\n").first(where: {
                    $0.trimmingCharacters(in: .whitespaces).hasPrefix(label)
                })
            else { return nil }
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap {
                milliseconds(String($0))
            }
        }
        guard let rateLine = output.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
            let rate = rateLine.split(separator: " ").last.flatMap({ Double($0) })
        else { throw BenchmarkFailure("wrk printed no rate:\n\(output)") }
        let nonSuccess =
            output.split(separator: "\n").first { $0.hasPrefix("non-2xx ") }
            .flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        let socketErrors = output.split(separator: "\n").first { $0.contains("Socket errors") } != nil ? 1 : 0
        return Result(
            requestsPerSecond: rate, p50Milliseconds: number(after: "50%") ?? .nan,
            p99Milliseconds: number(after: "99%") ?? .nan, errors: nonSuccess + socketErrors)
    }

    /// wrk's `1.23ms`, `456.00us`, `1.01s` as milliseconds.
    private static func milliseconds(_ text: String) -> Double? {
        if text.hasSuffix("us"), let value = Double(text.dropLast(2)) { return value / 1000 }
        if text.hasSuffix("ms"), let value = Double(text.dropLast(2)) { return value }
        if text.hasSuffix("s"), let value = Double(text.dropLast(1)) { return value * 1000 }
        return nil
    }
}

extension Wrk.Result {
    /// The round with the median rate (of an even count, the lower middle one): its latencies are that run's own.
    static func median(of results: [Wrk.Result]) -> Wrk.Result {
        let sorted = results.sorted { $0.requestsPerSecond < $1.requestsPerSecond }
        return sorted[(sorted.count - 1) / 2]
    }
}
