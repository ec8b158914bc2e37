import Foundation
import Messaging
import TestSupport

/// Multicast to 10,000 tokens (20 × `sendEachForMulticast` of 500, one after another) against a local fake FCM:
/// nginx over TLS and HTTP/2, answering every send with FCM's success body and `/oauth2/token` with a token.
/// Beside it, firebase-admin (Python) sends the same multicasts to the same nginx, when `make bench` could
/// install it (`SWITCHYARD_BENCH_PYTHON` names the venv's python). Our side runs in a child process, so its peak
/// RSS (VmHWM) is the client's alone. Beside the fan-out, the example app's notification queue catching up
/// (`drainRate`).
enum PushBenchmark {
    static let tokens = 10_000
    static let batch = 500

    static let benchmark = Benchmark(
        name: "push",
        summary:
            "multicast to 10,000 tokens: FCMClient vs firebase-admin's send_each_for_multicast, against nginx (HTTP/2)"
    ) { try await run() }

    static func run() async throws {
        let directory = try makeScratchDirectory("push-bench")
        defer { removeScratchDirectory(directory) }
        func path(_ name: String) -> String { directory + "/" + name }

        try runTool(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1", "-subj",
                "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", path("tls-key.pem"), "-out",
                path("cert.pem"),
            ])
        try runTool(
            "/usr/bin/openssl",
            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path("account-key.pem")])

        let port = closedLoopbackPort()
        let base = "https://127.0.0.1:\(port)"
        let privateKey = try String(contentsOfFile: path("account-key.pem"), encoding: .utf8)
        let account: [String: String] = [
            "type": "service_account", "project_id": "p", "private_key_id": "bench", "private_key": privateKey,
            "client_email": "bench@p.iam.gserviceaccount.com", "token_uri": "\(base)/oauth2/token",
        ]
        try JSONSerialization.data(withJSONObject: account).write(to: URL(fileURLWithPath: path("account.json")))

        let nginx = try NginxPeer(
            directory: directory, port: port, listenOptions: "ssl http2",
            server: """
                ssl_certificate \(path("cert.pem"));
                ssl_certificate_key \(path("tls-key.pem"));
                default_type application/json;
                location = /oauth2/token {
                    return 200 '{"access_token":"bench-token","expires_in":3600,"token_type":"Bearer"}';
                }
                location / { return 200 '{"name":"projects/p/messages/1"}'; }
                """)
        defer { nginx.stop() }

        print("push: \(tokens) messages as \(tokens / batch) multicasts of \(batch), nginx over TLS")
        let ours = try runTool(
            Bundle.main.executablePath ?? CommandLine.arguments[0],
            ["push-client", base, path("account.json"), path("cert.pem"), String(tokens), String(batch)])
        let swift = figures(ours)
        report("FCMClient (Swift, HTTP/2)", swift)
        let drain = try await drainRate(directory: path("drain"))
        var drainLine = String(
            format: "  the example app's queue catching up (%d notifications, one device each, to the outbox): %.0f/s",
            queued, drain)
        if let fanOut = swift.rate { drainLine += String(format: ", %.2f× FCMClient's fan-out", drain / fanOut) }
        print(drainLine)

        guard let python = ProcessInfo.processInfo.environment["SWITCHYARD_BENCH_PYTHON"],
            FileManager.default.isExecutableFile(atPath: python)
        else {
            print("  firebase-admin: skipped (SWITCHYARD_BENCH_PYTHON is not set; `make bench` sets it)")
            return
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("push/firebase_admin_peer.py").path
        let theirs = try runTool(
            python, [script, base, path("account.json"), String(tokens), String(batch)],
            environment: ["REQUESTS_CA_BUNDLE": path("cert.pem"), "SSL_CERT_FILE": path("cert.pem")])
        let peer = figures(theirs)
        report("firebase-admin (Python)", peer)
        if let ourRate = swift.rate, let theirRate = peer.rate, theirRate > 0 {
            print(String(format: "  ratio: %.1f× firebase-admin's messages/s (goal ≥ 5×)", ourRate / theirRate))
        }
    }

    /// The child: sends and prints `messages= seconds= failures= peak_rss_kb=`.
    static func client(_ arguments: [String]) async throws {
        guard arguments.count == 5, let total = Int(arguments[3]), let batch = Int(arguments[4]) else {
            print("usage: switchyard-bench push-client BASE_URL ACCOUNT_JSON CA_FILE TOKENS BATCH")
            return
        }
        let base = arguments[0]
        let client = try FCMClient(
            serviceAccount: ServiceAccount(contentsOfFile: arguments[1]),
            configuration: FCMClient.Configuration(
                endpoints: FCMEndpoints(
                    messagesBaseURL: base, instanceIdBaseURL: base, tokenURI: "\(base)/oauth2/token"),
                http: HTTPClient.Configuration(maximumConcurrentTransfers: 100, trustedCertificatesFile: arguments[2])))
        let tokens = (0..<total).map { "token-" + String(repeating: "0", count: 5 - String($0).count) + String($0) }
        func multicast(_ tokens: ArraySlice<String>) -> MulticastMessage {
            MulticastMessage(
                tokens: Array(tokens),
                notification: PushNotification(title: "A favourite book changed", body: "Dune Messiah"),
                data: ["bookId": "42", "type": "favorite_book_updated"])
        }
        // Warm up: the access token and a connection, as the peer does.
        _ = try await client.sendEachForMulticast(multicast(tokens[..<1]))
        var failures = 0
        let clock = ContinuousClock()
        let start = clock.now
        for first in stride(from: 0, to: total, by: batch) {
            failures += try await client.sendEachForMulticast(multicast(tokens[first..<min(first + batch, total)]))
                .failureCount
        }
        let elapsed = Timing.seconds(start.duration(to: clock.now))
        print(
            String(
                format: "messages=%d seconds=%.6f failures=%d peak_rss_kb=%d connections=%d", total, elapsed, failures,
                peakResidentKilobytes(), client.http.connectionsOpened))
    }

    private struct Figures {
        var messages: Int?
        var seconds: Double?
        var failures: Int?
        var peakKilobytes: Int?
        var connections: Int?
        var rate: Double? {
            guard let messages, let seconds, seconds > 0 else { return nil }
            return Double(messages) / seconds
        }
    }

    private static func figures(_ output: String) -> Figures {
        var values: [String: String] = [:]
        for field in output.split(whereSeparator: \.isWhitespace) {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return Figures(
            messages: values["messages"].flatMap { Int($0) }, seconds: values["seconds"].flatMap { Double($0) },
            failures: values["failures"].flatMap { Int($0) }, peakKilobytes: values["peak_rss_kb"].flatMap { Int($0) },
            connections: values["connections"].flatMap { Int($0) })
    }

    private static func report(_ name: String, _ figures: Figures) {
        guard let rate = figures.rate else {
            print("  \(name): no figures")
            return
        }
        var line = String(format: "  %@: %.0f messages/s", name, rate)
        if let failures = figures.failures, failures > 0 { line += ", \(failures) failed" }
        if let peak = figures.peakKilobytes { line += String(format: ", peak RSS %.1f MB", Double(peak) / 1024) }
        if let connections = figures.connections { line += ", \(connections) connection(s)" }
        print(line)
    }

    /// Runs a tool to its end and returns what it printed; a failing tool is an error naming it.
    @discardableResult
    private static func runTool(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> String
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readUntilEnd()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("\(path) \(arguments.first ?? "") exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// VmHWM from /proc/self/status: the most resident memory this process has had.
    private static func peakResidentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
