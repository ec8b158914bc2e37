import Foundation
import Messaging
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `switchyard serve` with the MongoDB wire protocol, reached by Debian's pymongo: a driver's write fires the
/// example app's trigger, a change stream resumes across a `kill -9` with no event lost, and a taken port given
/// explicitly stops the start.
@Suite(.timeLimit(.minutes(3))) struct ServeMongoDBTests {
    static let script = repositoryRoot.path + "/Tests/Compatibility/mongowire/pymongo_client.py"

    /// A listening socket on a free loopback port, held until `close`: the port stays taken while held.
    final class HeldPort {
        let socket: Int32
        let port: UInt16

        init() throws {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(socket, pointer, length) == 0 && listen(socket, 1) == 0
                        && getsockname(socket, pointer, &length) == 0
                }
            }
            guard bound else { throw CancellationError() }
            self.socket = socket
            port = UInt16(bigEndian: address.sin_port)
        }

        func close() { _ = Glibc.close(socket) }
    }

    /// A port that was free a moment ago, for the server to listen on.
    static func freePort() throws -> UInt16 {
        let held = try HeldPort()
        defer { held.close() }
        return held.port
    }

    static func pymongo(_ uri: String, _ scenario: String, _ argument: String? = nil) async throws -> SwitchyardRun {
        try await python(script, uri, scenario, argument)
    }

    /// Debian's python3 running `script` with the server's URI, a scenario and its argument, waited for off the
    /// concurrency pool (a scenario may take seconds, and a blocked pool thread would stall other suites).
    static func python(_ script: String, _ uri: String, _ scenario: String, _ argument: String?) async throws
        -> SwitchyardRun
    {
        let run = try await FinishedProcess.run(
            "/usr/bin/python3", [script, uri, scenario] + (argument.map { [$0] } ?? []))
        return SwitchyardRun(status: run.status, stdout: run.output, stderr: run.errors)
    }

    static func serve(data: String, mongoDBPort: UInt16) throws -> RunningSwitchyard {
        try RunningSwitchyard(
            [
                "serve", "--config", repositoryRoot.path, "--data-dir", data, "--port", "0", "--mongodb-port",
                "\(mongoDBPort)", "--log-format", "json",
            ], in: repositoryRoot.path)
    }

    @Test func aDriversInsertFiresTheExampleAppsTrigger() async throws {
        let data = try TemporaryDirectory()
        let server = try Self.serve(data: data.path + "/data", mongoDBPort: try Self.freePort())
        defer { server.kill() }
        let line = try await server.awaitLine(containing: "serving the MongoDB wire protocol")
        let uri = try #require(line["mongoDB"] as? String)
        #expect(uri.hasPrefix("mongodb://127.0.0.1:") && uri.hasSuffix("/?directConnection=true"))
        let inserted = try await Self.pymongo(uri, "insert_book", "product")
        #expect(inserted.status == 0, "\(inserted.stdout)\(inserted.stderr)")
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if server.logLines.contains(where: {
                $0["function"] as? String == "sentTopicNotification" && $0["outcome"] as? String == "success"
            }) {
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the trigger's function did not run:\n\(server.text)")
    }

    @Test func aChangeStreamResumesAfterKill9WithNoEventLost() async throws {
        let data = try TemporaryDirectory()
        let first = try Self.serve(data: data.path + "/data", mongoDBPort: try Self.freePort())
        let uri = try #require(
            try await first.awaitLine(containing: "serving the MongoDB wire protocol")["mongoDB"] as? String)
        let before = try await Self.pymongo(uri, "before_crash")
        first.kill()
        try #require(before.status == 0, "\(before.stdout)\(before.stderr)")
        let token = try #require(
            before.stdout.split(separator: "\n").first { $0.hasPrefix("token ") }?.dropFirst("token ".count))
        let second = try Self.serve(data: data.path + "/data", mongoDBPort: try Self.freePort())
        defer { second.kill() }
        let again = try #require(
            try await second.awaitLine(containing: "serving the MongoDB wire protocol")["mongoDB"] as? String)
        let after = try await Self.pymongo(again, "after_crash", String(token))
        #expect(after.status == 0, "\(after.stdout)\(after.stderr)")
    }

    /// `switchyard users add` stores a user (password from standard input); serve then asks for it: a driver with
    /// the credentials runs commands, one without them runs only the handshake.
    @Test func usersAddedWithTheCommandMustAuthenticate() async throws {
        let data = try TemporaryDirectory()
        let password = "tea for two"
        let added = try switchyard(
            ["users", "add", "librarian", "--config", repositoryRoot.path, "--data-dir", data.path + "/data"],
            stdin: password + "\n", in: repositoryRoot.path)
        #expect(added.status == 0 && added.stdout.contains("added user librarian"), "\(added.stderr)")
        #expect(!added.stdout.contains(password) && !added.stderr.contains(password))
        let listed = try switchyard(
            ["users", "list", "--config", repositoryRoot.path, "--data-dir", data.path + "/data"],
            in: repositoryRoot.path)
        #expect(listed.stdout == "librarian  root\n", "\(listed.stdout)\(listed.stderr)")
        let reader = try switchyard(
            [
                "users", "add", "reader", "--roles", "read@authtests,readWrite@scratch", "--config",
                repositoryRoot.path, "--data-dir", data.path + "/data",
            ], stdin: "page turner\n", in: repositoryRoot.path)
        #expect(reader.stdout == "added user reader (read@authtests, readWrite@scratch)\n", "\(reader.stderr)")
        let misspelt = try switchyard(
            [
                "users", "add", "other", "--roles", "reed@authtests", "--config", repositoryRoot.path, "--data-dir",
                data.path + "/data",
            ], stdin: "x\n", in: repositoryRoot.path)
        #expect(
            misspelt.status == 2 && misspelt.stderr.contains("unknown role 'reed@authtests' (did you mean 'read'?)"),
            "\(misspelt.stderr)")
        let server = try Self.serve(data: data.path + "/data", mongoDBPort: try Self.freePort())
        defer { server.kill() }
        let line = try await server.awaitLine(containing: "serving the MongoDB wire protocol")
        let uri = try #require(line["mongoDB"] as? String)
        #expect((line["authentication"] as? String)?.contains("2 users") == true, "\(line)")
        let port = try #require(uri.split(separator: ":").last?.split(separator: "/").first)
        let withCredentials =
            "mongodb://librarian:tea%20for%20two@127.0.0.1:\(port)/?authSource=admin&authMechanism=SCRAM-SHA-1"
        let authenticated = try await Self.pymongoAuth(withCredentials, "authenticated", "librarian")
        #expect(authenticated.status == 0, "\(authenticated.stdout)\(authenticated.stderr)")
        let limited = try await Self.pymongoAuth(
            "mongodb://reader:page%20turner@127.0.0.1:\(port)/?authSource=admin&authMechanism=SCRAM-SHA-1", "reader")
        #expect(limited.status == 0, "\(limited.stdout)\(limited.stderr)")
        let unauthenticated = try await Self.pymongoAuth(uri, "unauthenticated")
        #expect(unauthenticated.status == 0, "\(unauthenticated.stdout)\(unauthenticated.stderr)")
        #expect(!server.text.contains(password))
    }

    @Test func usersAddRefusesAnEmptyPassword() throws {
        let data = try TemporaryDirectory()
        let run = try switchyard(
            ["users", "add", "librarian", "--config", repositoryRoot.path, "--data-dir", data.path + "/data"],
            stdin: "\n", in: repositoryRoot.path)
        #expect(run.status == 2 && run.stderr.contains("no password"), "\(run.stderr)")
    }

    static func pymongoAuth(_ uri: String, _ scenario: String, _ argument: String? = nil) async throws
        -> SwitchyardRun
    {
        try await python(
            repositoryRoot.path + "/Tests/Compatibility/mongowire/pymongo_auth.py", uri, scenario, argument)
    }

    /// `--mongodb-tls-certificate` and `--mongodb-tls-key` serve the protocol over TLS: a driver trusting the
    /// certificate writes through it; giving one without the other, or a key of another certificate, is bad input.
    @Test func theWireProtocolIsServedOverTLS() async throws {
        let data = try TemporaryDirectory()
        let files = data.path
        let made = try await FinishedProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                files + "/key.pem", "-out", files + "/cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                "subjectAltName=IP:127.0.0.1",
            ])
        try #require(made.status == 0, "\(made.errors)")
        let server = try RunningSwitchyard(
            [
                "serve", "--config", repositoryRoot.path, "--data-dir", files + "/data", "--port", "0",
                "--mongodb-port", "\(try Self.freePort())", "--log-format", "json", "--mongodb-tls-certificate",
                files + "/cert.pem", "--mongodb-tls-key", files + "/key.pem",
            ], in: repositoryRoot.path)
        defer { server.kill() }
        let line = try await server.awaitLine(containing: "serving the MongoDB wire protocol")
        let uri = try #require(line["mongoDB"] as? String)
        #expect(uri.hasSuffix("/?directConnection=true&tls=true"), "\(uri)")
        let inserted = try await Self.pymongo(uri + "&tlsCAFile=" + files + "/cert.pem", "insert_book", "product")
        #expect(inserted.status == 0, "\(inserted.stdout)\(inserted.stderr)")

        let halfGiven = try switchyard(
            ["serve", "--config", repositoryRoot.path, "--mongodb-tls-key", files + "/key.pem"],
            in: repositoryRoot.path)
        #expect(
            halfGiven.status == 2
                && halfGiven.stderr.contains("--mongodb-tls-key needs --mongodb-tls-certificate"), "\(halfGiven.stderr)"
        )
        let unreadable = try switchyard(
            [
                "serve", "--config", repositoryRoot.path, "--mongodb-tls-certificate", files + "/key.pem",
                "--mongodb-tls-key", files + "/key.pem",
            ], in: repositoryRoot.path)
        #expect(
            unreadable.status == 2 && unreadable.stderr.contains("key.pem: not a PEM certificate"),
            "\(unreadable.stderr)")
        #expect(!unreadable.stderr.contains("PRIVATE KEY"))
    }

    @Test func anExplicitPortThatIsTakenFailsTheStart() throws {
        let data = try TemporaryDirectory()
        let held = try HeldPort()
        defer { held.close() }
        let run = try switchyard(
            [
                "serve", "--config", repositoryRoot.path, "--data-dir", data.path + "/data", "--port", "0",
                "--mongodb-port", "\(held.port)",
            ], in: repositoryRoot.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot listen on 127.0.0.1:\(held.port)"), "\(run.stderr)")
    }
}
