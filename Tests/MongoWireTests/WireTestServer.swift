import DocumentStore
import Foundation
import MongoWire
import TestSupport

/// A wire server on a free loopback port over a SQLite store in a directory of its own, for one test.
struct WireTestServer {
    let directory: TemporaryDirectory
    let store: DocumentStore
    let server: WireServer

    var uri: String { server.connectionString }

    /// The connection string with credentials (percent-encoded, as drivers want them) and `extra` options.
    func uri(user: String, password: String, _ extra: String = "") -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let escape = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        return
            "mongodb://\(escape(user)):\(escape(password))@127.0.0.1:\(port)/?directConnection=true&authSource=admin\(extra)"
    }
    var port: UInt16 { server.port }

    /// `users`: names and passwords the server authenticates (none: no authentication).
    static func start(
        retention: ChangeLogRetention = .init(), transactionLifetime: Duration = .seconds(60),
        users: [String: String] = [:]
    ) async throws -> WireTestServer {
        let directory = try TemporaryDirectory(prefix: "mongowire")
        let store = try await DocumentStore.open(
            StoreConfiguration(engine: .sqlite(directory: directory.path + "/data"), changeLogRetention: retention))
        for (name, password) in users { try await WireUsers.add(name, password: password, to: store) }
        let server = try WireServer.start(
            store: store,
            configuration: .init(
                port: 0, transactionLifetime: transactionLifetime, users: try await WireUsers.load(from: store)))
        return WireTestServer(directory: directory, store: store, server: server)
    }

    /// Runs `body` with a server started for it, stopped afterwards whether `body` threw or not.
    static func with(
        retention: ChangeLogRetention = .init(), transactionLifetime: Duration = .seconds(60),
        users: [String: String] = [:], _ body: (WireTestServer) async throws -> Void
    ) async throws {
        let server = try await start(retention: retention, transactionLifetime: transactionLifetime, users: users)
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func stop() async {
        await server.stop()
        await store.close()
    }
}

/// Where the drivers' scripts live.
enum DriverProcess {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static let scripts = repositoryRoot + "/Tests/Compatibility/mongowire"
}

struct DriverFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The Pythons that run `pymongo_client.py`: Debian's pymongo 3.11 (the OP_QUERY handshake) and PyPI's pymongo 4 in
/// a venv under `.build/`, made on first use (failing with pip's reason when it cannot be).
enum PyMongo {
    static let debian = "/usr/bin/python3"
    static let venv = DriverProcess.repositoryRoot + "/.build/mongowire-venv"
    static let version = "4.10.1"

    /// Made once for all the tests of a run, which run in parallel and would otherwise make it together.
    private static let made = Task { try await makeVenv() }

    static func pypi() async throws -> String {
        try await made.value
    }

    private static func makeVenv() async throws -> String {
        let python = venv + "/bin/python"
        if FileManager.default.isExecutableFile(atPath: python),
            try await FinishedProcess.run(
                python, ["-c", "import sys, pymongo; sys.exit(pymongo.version != '\(version)')"]
            ).status == 0
        {
            return python
        }
        let made = try await FinishedProcess.run("/usr/bin/python3", ["-m", "venv", "--clear", venv])
        guard made.status == 0 else { throw DriverFailure("cannot make the venv \(venv): \(made.errors)") }
        let installed = try await FinishedProcess.run(
            venv + "/bin/pip", ["install", "--quiet", "--disable-pip-version-check", "pymongo==\(version)"])
        guard installed.status == 0 else { throw DriverFailure("pip cannot install pymongo: \(installed.errors)") }
        return python
    }

    /// Runs a scenario of `pymongo_client.py`; fails with the driver's traceback when an assertion did not hold.
    @discardableResult
    static func run(_ python: String, _ uri: String, _ scenario: String, _ argument: String? = nil) async throws
        -> String
    {
        let result = try await FinishedProcess.run(
            python, [DriverProcess.scripts + "/pymongo_client.py", uri, scenario] + (argument.map { [$0] } ?? []))
        guard result.status == 0, result.output.contains("ok \(scenario)") else {
            throw DriverFailure(
                "\(scenario) with \(python) exited \(result.status):\n\(result.output)\n\(result.errors)")
        }
        return result.output
    }
}
