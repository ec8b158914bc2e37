import Foundation
import Messaging
import TestSupport
import Testing

/// Against `nghttpd` (Debian nghttp2-server), a real HTTP/2 server over TLS with a certificate made for the test:
/// concurrent requests travel as streams of one connection. (TLS because Debian 12's libcurl 7.88 fails requests
/// that reuse a cleartext prior-knowledge connection.)
@Suite(.timeLimit(.minutes(1))) struct HTTPClientHTTP2Tests {
    /// `nghttpd` serving a temporary directory over TLS on a loopback port; killed (SIGKILL) when released.
    final class HTTP2FileServer {
        let directory: URL
        let process = Process()
        let port = closedLoopbackPort()
        var url: String { "https://127.0.0.1:\(port)" }
        var certificate: String { directory.appendingPathComponent("cert.pem").path }
        var http: HTTPClient.Configuration { HTTPClient.Configuration(trustedCertificatesFile: certificate) }

        init(files: [String: String]) async throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("h2-\(UUID().uuidString)")
            for (path, text) in files {
                let file = directory.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: file, atomically: true, encoding: .utf8)
            }
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            openssl.arguments = [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
                "-keyout", directory.appendingPathComponent("key.pem").path, "-out", certificate,
            ]
            openssl.standardError = FileHandle.nullDevice
            try openssl.run()
            openssl.waitForExit()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nghttpd")
            process.arguments = [
                "--address=127.0.0.1", "-d", directory.path, String(port),
                directory.appendingPathComponent("key.pem").path, certificate,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Ready once it answers.
            let probe = try HTTPClient(configuration: http)
            for _ in 0..<200 {
                let request = HTTPRequest(url: url + "/", timeout: .milliseconds(200))
                if (try? await probe.send(request)) != nil { return }
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func concurrentRequestsShareOneConnection() async throws {
        let server = try await HTTP2FileServer(files: ["book.json": #"{"title":"Dune"}"#])
        let client = try HTTPClient(configuration: server.http)
        let url = server.url + "/book.json"
        let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<60 {
                group.addTask {
                    try await client.send(
                        HTTPRequest(url: url))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.count == 60)
        #expect(
            responses.allSatisfy { $0.status == 200 && $0.protocolVersion == "2" && $0.text == #"{"title":"Dune"}"# })
        #expect(client.connectionsOpened == 1)
        withExtendedLifetime(server) {}
    }

    @Test func fcmMulticastsAreStreamsOfOneConnection() async throws {
        let server = try await HTTP2FileServer(files: [
            "v1/projects/demo/messages:send": #"{"name":"projects/demo/messages/1"}"#
        ])
        // Fewer transfers than the connection's 100 streams: a stream curl has not yet counted as closed when the
        // next transfer starts would otherwise make it open a second connection.
        var http = server.http
        http.maximumConcurrentTransfers = 64
        let client = try FCMClient(
            projectId: "demo", accessTokens: StaticAccessToken(),
            configuration: FCMClient.Configuration(endpoints: .emulator(server.url), http: http))
        for _ in 0..<3 {
            let response = try await client.sendEachForMulticast(
                MulticastMessage(tokens: (0..<200).map { "t\($0)" }, data: ["k": "v"]))
            #expect(response.successCount == 200)
        }
        // Reused across calls, too.
        #expect(client.http.connectionsOpened == 1)
    }
}
