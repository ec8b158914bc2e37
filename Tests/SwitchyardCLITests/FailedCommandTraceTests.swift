import Foundation
import TestSupport
import Testing

/// A command that fails before it does its work leaves no data directory behind: a newcomer's first mistakes
/// must not create `.switchyard` with a lock, a store or an admin token in it.
@Suite struct FailedCommandTraceTests {
    func leavesNoDataDirectory(_ arguments: [String], status: Int32, app: TemporaryDirectory) throws -> SwitchyardRun {
        let run = try switchyard(arguments, in: app.path)
        #expect(run.status == status, "\(arguments): \(run.stderr)")
        #expect(
            !FileManager.default.fileExists(atPath: "\(app.path)/.switchyard"),
            "\(arguments) left \((try? FileManager.default.contentsOfDirectory(atPath: "\(app.path)/.switchyard")) ?? [])"
        )
        return run
    }

    @Test func badCallsFiresAndConfigurationsCreateNothing() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let unknown = try leavesNoDataDirectory(["call", "pnig"], status: 2, app: app)
        #expect(
            unknown.stderr == "switchyard call: FunctionNotFound: function not found: 'pnig' (did you mean 'ping'?)\n")
        _ = try leavesNoDataDirectory(["fire", "nosuchtrigger"], status: 2, app: app)
        let withTrigger = try TemporaryDirectory()
        try withTrigger.write(
            "triggers.yaml",
            "triggers:\n  - {name: tick, type: database, function: sentTopicNotification, database: d, operations: [INSERT]}\n"
        )
        _ = try leavesNoDataDirectory(["fire", "tick", "--event", "nope.json"], status: 2, app: withTrigger)
        let resumed = try leavesNoDataDirectory(["resume", "tick"], status: 2, app: withTrigger)
        #expect(resumed.stderr == "switchyard resume: trigger 'tick' is not suspended\n")
        let broken = try TemporaryDirectory()
        try broken.write("triggers.yaml", "functions:\n  pnig: {}\n")
        for command in [["call", "ping"], ["run"], ["serve", "--port", "0"], ["data", "import", "seed"]] {
            _ = try leavesNoDataDirectory(command, status: 2, app: broken)
        }
    }

    @Test func aServerThatCannotListenCreatesNothing() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let taken = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(taken) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                try #require(bind(taken, socketAddress, length) == 0)
                try #require(listen(taken, 1) == 0)
                try #require(getsockname(taken, socketAddress, &length) == 0)
            }
        }
        let port = UInt16(bigEndian: address.sin_port)
        let run = try leavesNoDataDirectory(["serve", "--port", "\(port)"], status: 1, app: app)
        #expect(run.stderr.contains("cannot start"), "\(run.stderr)")
    }

    @Test func anImportTheStoreRefusesCreatesNothing() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write("seed/product.book.json", "{\"_id\": 2}\n{\"_id\": 2}\n")
        let run = try leavesNoDataDirectory(["data", "import", "seed"], status: 2, app: app)
        #expect(run.stderr.hasPrefix("seed/product.book.json:2:1: E11000 duplicate key error"))
    }

    @Test func anUnreadableFileSaysWhy() throws {
        let app = try TemporaryDirectory()
        try app.write(
            "triggers.yaml",
            "triggers:\n  - {name: tick, type: database, function: sentTopicNotification, database: d, operations: [INSERT]}\n"
        )
        let missing = try switchyard(["fire", "tick", "--event", "nope.json"], in: app.path)
        #expect(missing.stderr == "switchyard fire: cannot read nope.json: no such file\n")
        let directory = try switchyard(["fire", "tick", "--event", "."], in: app.path)
        #expect(directory.stderr == "switchyard fire: cannot read .: is a directory\n")
        let generated = try switchyard(
            ["generate-event", "delete", "--ns", "d.c", "--before", "nope.json"], in: app.path)
        #expect(generated.status == 2)
        #expect(generated.stderr == "switchyard generate-event: cannot read nope.json: no such file\n")
    }
}
