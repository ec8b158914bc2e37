import BSON
import DocumentStore
import Foundation
import MongoWire
import TestSupport
import Testing

/// SCRAM authentication against real drivers, on a wire server with users: PyPI's pymongo 4 (SCRAM-SHA-256
/// negotiated through saslSupportedMechs and speculative authentication, and SCRAM-SHA-1 asked for), Debian's
/// pymongo 3.11 with SCRAM-SHA-1, Debian's node-mongodb and libmongoc with credentials in the connection string;
/// without credentials only the handshake runs, and a wrong password or an unknown user is refused alike.
@Suite(.timeLimit(.minutes(5))) struct AuthenticationTests {
    static let users = ["reader": "correct horse battery", "ada,lov=lace": "pâss wörd:@/?"]

    @Test func pypiPyMongoAuthenticatesWithSCRAMSHA256() async throws {
        let python = try await PyMongo.pypi()
        try await WireTestServer.with(users: Self.users) { server in
            for (user, password) in Self.users {
                try await PyMongoAuth.run(python, server.uri(user: user, password: password), "authenticated", user)
            }
            // Every CRUD command the unauthenticated suite runs, through an authenticated connection.
            try await PyMongo.run(python, server.uri(user: "reader", password: Self.users["reader"]!), "crud")
        }
    }

    @Test func pypiPyMongoAuthenticatesWithSCRAMSHA1() async throws {
        let python = try await PyMongo.pypi()
        try await WireTestServer.with(users: Self.users) { server in
            let uri = server.uri(user: "reader", password: Self.users["reader"]!, "&authMechanism=SCRAM-SHA-1")
            try await PyMongoAuth.run(python, uri, "authenticated", "reader")
        }
    }

    @Test(arguments: ["&authMechanism=SCRAM-SHA-1", ""]) func debianPyMongoAuthenticates(mechanism: String) async throws
    {
        try await WireTestServer.with(users: Self.users) { server in
            for (user, password) in Self.users {
                let uri = server.uri(user: user, password: password, mechanism)
                try await PyMongoAuth.run(PyMongo.debian, uri, "authenticated", user)
            }
        }
    }

    @Test func withoutCredentialsOnlyTheHandshakeRuns() async throws {
        let python = try await PyMongo.pypi()
        try await WireTestServer.with(users: Self.users) { server in
            try await PyMongoAuth.run(python, server.uri, "unauthenticated")
            try await PyMongoAuth.run(PyMongo.debian, server.uri, "unauthenticated")
            try await PyMongoAuth.run(python, server.uri, "malformed")
        }
    }

    /// A wrong password and an unknown user get the same AuthenticationFailed, with neither password in it.
    @Test func aWrongPasswordOrAnUnknownUserIsRefusedAlike() async throws {
        let python = try await PyMongo.pypi()
        try await WireTestServer.with(users: Self.users) { server in
            let wrong = "not the password"
            for mechanism in ["", "&authMechanism=SCRAM-SHA-1"] {
                for user in ["reader", "nobody"] {
                    let uri = server.uri(user: user, password: wrong, mechanism)
                    try await PyMongoAuth.run(python, uri, "refused", wrong)
                    try await PyMongoAuth.run(PyMongo.debian, uri, "refused", wrong)
                }
            }
            // Users are in admin: the right password against another authSource is refused too.
            let elsewhere = server.uri(user: "reader", password: Self.users["reader"]!)
                .replacingOccurrences(of: "authSource=admin", with: "authSource=library")
            try await PyMongoAuth.run(python, elsewhere, "refused", Self.users["reader"]!)
        }
    }

    @Test func nodeDriverAuthenticates() async throws {
        try await WireTestServer.with(users: Self.users) { server in
            var environment = ProcessInfo.processInfo.environment
            environment["NODE_PATH"] = "/usr/share/nodejs"
            for (user, password, scenario) in [
                ("reader", Self.users["reader"]!, "authenticated"), ("reader", "wrong", "refused"),
            ] {
                let run = try await FinishedProcess.run(
                    "/usr/bin/node",
                    [
                        DriverProcess.scripts + "/node_auth.js", server.uri(user: user, password: password), scenario,
                        user,
                    ],
                    environment: environment)
                #expect(run.status == 0 && run.output.contains("ok node-\(scenario)"), "\(run.output)\n\(run.errors)")
            }
        }
    }

    @Test func cDriverAuthenticates() async throws {
        try await WireTestServer.with(users: Self.users) { server in
            let program = server.directory.path + "/c_auth"
            let flags = try await FinishedProcess.run("/usr/bin/pkg-config", ["--cflags", "--libs", "libmongoc-1.0"])
            try #require(flags.status == 0, "pkg-config finds no libmongoc-1.0: \(flags.errors)")
            let built = try await FinishedProcess.run(
                "/usr/bin/gcc",
                ["-o", program, DriverProcess.scripts + "/c_auth.c"]
                    + flags.output.split(whereSeparator: \.isWhitespace).map(String.init))
            try #require(built.status == 0, "gcc: \(built.errors)")
            for (password, scenario) in [(Self.users["reader"]!, "authenticated"), ("wrong", "refused")] {
                let run = try await FinishedProcess.run(
                    program,
                    [
                        "mongodb://reader:\(password.replacingOccurrences(of: " ", with: "%20"))@127.0.0.1:\(server.port)/?authSource=admin",
                        scenario,
                    ])
                #expect(run.status == 0 && run.output.contains("ok c-\(scenario)"), "\(run.output)\n\(run.errors)")
            }
        }
    }

    /// The store keeps salted keys only: the password shows nowhere in the user's document.
    @Test func theStoreKeepsNoPassword() async throws {
        try await WireTestServer.with(users: Self.users) { server in
            let stored = try await server.store.database(WireUsers.database).collection(WireUsers.collection).find()
                .toArray()
            #expect(stored.count == 2)
            for document in stored {
                let text = document.extendedJSON(mode: .canonical)
                for password in Self.users.values { #expect(!text.contains(password)) }
                #expect(document["credentials"]?.documentValue?.keys.sorted() == ["SCRAM-SHA-1", "SCRAM-SHA-256"])
            }
            await #expect(throws: StoreError.self) { try await WireUsers.add("", password: "x", to: server.store) }
            await #expect(throws: StoreError.self) { try await WireUsers.add("x", password: "", to: server.store) }
        }
    }
}

/// Runs a scenario of `pymongo_auth.py`; fails with the driver's traceback when an assertion did not hold.
enum PyMongoAuth {
    static func run(_ python: String, _ uri: String, _ scenario: String, _ argument: String? = nil) async throws {
        let result = try await FinishedProcess.run(
            python, [DriverProcess.scripts + "/pymongo_auth.py", uri, scenario] + (argument.map { [$0] } ?? []))
        guard result.status == 0, result.output.contains("ok \(scenario)") else {
            throw DriverFailure(
                "\(scenario) with \(python) exited \(result.status):\n\(result.output)\n\(result.errors)")
        }
    }
}
