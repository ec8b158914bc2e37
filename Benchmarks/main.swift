// `switchyard-bench [NAME...]`: runs the named benchmarks, or all of them. Build with -c release.
let benchmarks: [Benchmark] = [
    ExtendedJSONBenchmark.benchmark, StoreBenchmark.benchmark, PostgreSQLStoreBenchmark.benchmark,
    TriggerBenchmark.benchmark, ServeBenchmark.benchmark,
    PushBenchmark.benchmark, ImportBenchmark.benchmark, WatchBenchmark.benchmark, RulesBenchmark.benchmark,
    ChangeWatchBenchmark.benchmark, WireBenchmark.benchmark,
    TriggerOrderBenchmark.benchmark, ReplayBenchmark.benchmark, FailoverBenchmark.benchmark,
]

let requested = Array(CommandLine.arguments.dropFirst())
if requested.first == "push-client" {
    // The push benchmark's child process (its peak RSS is the client's alone).
    do {
        try await PushBenchmark.client(Array(requested.dropFirst()))
    } catch {
        print("push-client failed: \(error)")
    }
} else if requested.first == "push-drain" {
    // The push benchmark's catch-up alone, for profiling it.
    do {
        try await PushBenchmark.drainAlone(Array(requested.dropFirst()))
    } catch {
        print("push-drain failed: \(error)")
    }
} else if requested.contains("--help") || requested.contains("--list") {
    for benchmark in benchmarks { print("\(benchmark.name)\t\(benchmark.summary)") }
} else {
    let unknown = requested.filter { name in !benchmarks.contains { $0.name == name } }
    if !unknown.isEmpty {
        print(
            "unknown benchmark: \(unknown.joined(separator: ", ")); known: \(benchmarks.map(\.name).joined(separator: ", "))"
        )
    } else {
        for benchmark in benchmarks where requested.isEmpty || requested.contains(benchmark.name) {
            do {
                try await benchmark.run()
            } catch {
                print("\(benchmark.name) failed: \(error)")
            }
        }
    }
}
