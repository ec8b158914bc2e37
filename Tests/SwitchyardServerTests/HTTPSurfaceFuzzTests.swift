import Foundation
import Testing

@testable import SwitchyardServer

/// The HTTP surfaces of the served example app (client API, admin API, FCM emulator) under mutated requests:
/// every request is answered within 5 s, none with a 5xx, every client API error in the App Services error shape
/// (JSON with `error` and `error_code`), and the server still serves afterwards. `make test`
/// runs it for `SWITCHYARD_FUZZ_SECONDS` (30 by default), `make fuzz` for longer; the seed is printed, and
/// `SWITCHYARD_FUZZ_SEED` replays a run.
@Suite struct HTTPSurfaceFuzzTests {
    /// A request unanswered for this long is a hang (a finding), not a slow answer.
    static let hangLimit = Duration.seconds(5)
    static let environment = ProcessInfo.processInfo.environment
    static let seconds = environment["SWITCHYARD_FUZZ_SECONDS"].flatMap(Int.init) ?? 30
    static let maximumRequests = environment["SWITCHYARD_FUZZ_REQUESTS"].flatMap(Int.init) ?? 1_000_000

    struct Finding: CustomStringConvertible {
        let index: Int
        let outcome: RawHTTPExchange.Outcome
        let request: HTTPSurfaceFuzzer.Request
        /// What was wrong with an answer that came (empty for a missing answer or a 5xx).
        var problem = ""

        var description: String {
            "request \(index): \(outcome)\(problem.isEmpty ? "" : " (\(problem))") for \(request.summary)"
        }
    }

    @Test func mutatedRequestsGetAnAnswerAndNoServerError() async throws {
        let seed = Self.environment["SWITCHYARD_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("HTTP surface fuzzer: SWITCHYARD_FUZZ_SEED=\(seed), \(Self.seconds) s")
        try await ServedApp.withExampleApp { served in
            let login = try await served.loginAnonymously()
            let fuzzer = HTTPSurfaceFuzzer(
                seeds: HTTPSurfaceFuzzer.seeds(
                    appId: ServedApp.appId, accessToken: login.accessToken,
                    adminToken: served.server.adminToken.value),
                seed: seed)
            let exchange = RawHTTPExchange(port: served.server.http.port, limit: Self.hangLimit)
            let (statuses, findings) = await Self.run(fuzzer, exchange)
            let sent = statuses.values.reduce(0, +)
            let counts = statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            print("HTTP surface fuzzer: \(sent) requests (\(counts)), \(findings.count) findings (seed \(seed))")
            for finding in findings.prefix(20) { print("  \(finding)") }
            #expect(findings.isEmpty, "seed \(seed): \(findings.prefix(5).map(\.description))")
            let location = try await served.client.get(url: "\(served.appBase)/location")
            #expect(location.status == 200, "the server no longer answers after the run (seed \(seed))")
        }
    }

    /// Why a client API error answer is not in the App Services error shape; nil when it is.
    static func errorShapeProblem(_ answer: RawHTTPExchange.Exchange) -> String? {
        guard answer.contentType?.hasPrefix("application/json") == true else {
            return "Content-Type \(answer.contentType ?? "none"), not JSON"
        }
        let body = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any]
        guard body?["error"] is String, body?["error_code"] is String else {
            return "not an App Services error: \(String(decoding: answer.body.prefix(200), as: UTF8.self))"
        }
        return nil
    }

    /// Sends requests one at a time from a thread of its own (each exchange blocks) until the time or the count
    /// is spent, or the server stops answering; how many answers of each status came (0: none), and the findings.
    static func run(_ fuzzer: HTTPSurfaceFuzzer, _ exchange: RawHTTPExchange) async -> ([Int: Int], [Finding]) {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                var fuzzer = fuzzer
                var findings: [Finding] = []
                var statuses: [Int: Int] = [:]
                let end = ContinuousClock.now + .seconds(seconds)
                var index = 0
                while index < maximumRequests, ContinuousClock.now < end {
                    let request = fuzzer.next()
                    let isHead = request.method == "HEAD"
                    let answer = exchange.exchange(request.bytes, isHead: isHead)
                    let outcome = answer.outcome
                    if case .answered(let status, let streaming) = outcome {
                        statuses[status, default: 0] += 1
                        if status >= 500 {
                            findings.append(Finding(index: index, outcome: outcome, request: request))
                        } else if status >= 400, !isHead, !streaming, request.path.hasPrefix("/api/client/"),
                            let problem = errorShapeProblem(answer)
                        {
                            findings.append(Finding(index: index, outcome: outcome, request: request, problem: problem))
                        }
                    } else {
                        statuses[0, default: 0] += 1
                        findings.append(Finding(index: index, outcome: outcome, request: request))
                    }
                    index += 1
                    if case .refused = outcome, findings.count >= 3 { break }
                }
                continuation.resume(returning: (statuses, findings))
            }
            thread.start()
        }
    }
}
