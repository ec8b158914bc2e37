import Foundation

/// One named benchmark. Each prints its own figures; `main.swift` lists them.
struct Benchmark: Sendable {
    var name: String
    var summary: String
    var run: @Sendable () async throws -> Void
}

/// Timing helpers: the best of several runs, so a stray scheduling hiccup does not count.
enum Timing {
    static func best(of runs: Int, _ body: () throws -> Void) rethrows -> Duration {
        var best = Duration.seconds(Int64.max)
        for _ in 0..<runs {
            let elapsed = try ContinuousClock().measure(body)
            best = min(best, elapsed)
        }
        return best
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func megabytesPerSecond(_ bytes: Int, _ duration: Duration) -> Double {
        Double(bytes) / 1_000_000 / seconds(duration)
    }
}

/// The value at `fraction` of the sorted values (0.5: the median); 0 for none.
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

/// A new directory under the temporary directory for one benchmark's files; the caller removes it with
/// `removeScratchDirectory` (in a `defer`).
func makeScratchDirectory(_ name: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-\(name)-\(UUID().uuidString)")
        .path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func removeScratchDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}
