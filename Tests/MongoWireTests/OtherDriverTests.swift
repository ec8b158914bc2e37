import Foundation
import TestSupport
import Testing

/// The Node.js driver (Debian's node-mongodb) and the C driver (Debian's libmongoc, a program built here with gcc)
/// against a wire server on a free port.
@Suite(.timeLimit(.minutes(5))) struct OtherDriverTests {
    @Test func nodeDriver() async throws {
        try await WireTestServer.with { server in
            var environment = ProcessInfo.processInfo.environment
            environment["NODE_PATH"] = "/usr/share/nodejs"
            let run = try await FinishedProcess.run(
                "/usr/bin/node", [DriverProcess.scripts + "/node_client.js", server.uri], environment: environment)
            #expect(run.status == 0 && run.output.contains("ok node"), "\(run.output)\n\(run.errors)")
        }
    }

    @Test func cDriver() async throws {
        try await WireTestServer.with { server in
            let directory = server.directory.path
            let flags = try await FinishedProcess.run("/usr/bin/pkg-config", ["--cflags", "--libs", "libmongoc-1.0"])
            try #require(flags.status == 0, "pkg-config finds no libmongoc-1.0: \(flags.errors)")
            let built = try await FinishedProcess.run(
                "/usr/bin/gcc",
                ["-o", directory + "/c_client", DriverProcess.scripts + "/c_client.c"]
                    + flags.output.split(whereSeparator: \.isWhitespace).map(String.init))
            try #require(built.status == 0, "gcc: \(built.errors)")
            let run = try await FinishedProcess.run(directory + "/c_client", [server.uri])
            #expect(run.status == 0 && run.output.contains("ok c"), "\(run.output)\n\(run.errors)")
        }
    }
}
