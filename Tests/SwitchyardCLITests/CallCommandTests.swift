import Foundation
import Switchyard
import TestSupport
import Testing

@Suite struct CallCommandTests {
    @Test func callsAFunctionWithExtendedJSONArguments() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let run = try switchyard(
            ["call", "ping", "1", #""two""#, #"{"n": {"$numberLong": "3"}}"#, "--", "-4"], in: app.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "[1,\"two\",{\"n\":3},-4]\n")
        let canonical = try switchyard(["call", "ping", "1.5", "--canonical", "--user", "u1"], in: app.path)
        #expect(canonical.stdout == "[{\"$numberDouble\":\"1.5\"}]\n")
        // The app's data went to .switchyard under the configuration directory.
        #expect(FileManager.default.fileExists(atPath: "\(app.path)/.switchyard/store.sqlite"))
    }

    @Test func badCallsAreBadInput() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let unknown = try switchyard(["call", "pong", "--config", app.path])
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr == "switchyard call: FunctionNotFound: function not found: 'pong' (did you mean 'ping'?)\n")
        let word = try switchyard(["call", "ping", "hello", "--config", app.path])
        #expect(word.status == 2)
        #expect(
            word.stderr.hasPrefix(
                "switchyard call: argument 1: unexpected 'h': expected a value at column 1 (arguments are Extended JSON: quote strings as '\"text\"')"
            ))
        let invalid = try TemporaryDirectory()
        try invalid.write("triggers.yaml", "functions:\n  pnig: {}\n")
        let run = try switchyard(["call", "ping", "--config", invalid.path])
        #expect(run.status == 2)
        #expect(
            run.stderr.hasPrefix("\(invalid.path)/triggers.yaml:2:3: unknown function 'pnig' (did you mean 'ping'?"))
    }

    @Test func oneProcessAtATimeWritesTheData() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        // A follower only reads; a second writer is refused while the first holds the lock.
        let data = "\(app.path)/.switchyard"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let holder = try RunningSwitchyard(["logs", "--follow"], in: app.path)
        defer { holder.kill() }
        #expect(try switchyard(["call", "ping"], in: app.path).status == 0)
        let writer = try DataDirectoryLock.acquire(data)
        let refused = try switchyard(["call", "ping"], in: app.path)
        withExtendedLifetime(writer) {}
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == ".switchyard is in use by another switchyard process (is the app running?); stop it first\n")
    }
}
