import Foundation
import TestSupport
import Testing

@Suite struct LogsCommandTests {
    @Test func printsRecordedRunsOldestFirst() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let empty = try switchyard(["logs"], in: app.path)
        #expect(empty.status == 0)
        #expect(empty.stdout.isEmpty)
        #expect(empty.stderr == "no runs recorded yet: .switchyard holds no store\n")

        for user in ["a", "b", "c"] {
            #expect(try switchyard(["call", "ping", "--user", user], in: app.path).status == 0)
        }
        let all = try switchyard(["logs"], in: app.path)
        #expect(all.status == 0)
        let lines = all.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        for (line, user) in zip(lines, ["a", "b", "c"]) {
            #expect(line.contains(#/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z  ping \(called by /#))
            #expect(line.contains("ping (called by \(user))  attempt 1  success  "))
        }
        let last = try switchyard(["logs", "--limit", "1", "--function", "ping", "--config", app.path])
        #expect(last.stdout.split(separator: "\n").map(String.init) == [lines[2]])
        #expect(try switchyard(["logs", "--trigger", "someTrigger"], in: app.path).stdout.isEmpty)
        let badLimit = try switchyard(["logs", "--limit", "0"], in: app.path)
        #expect(badLimit.status == 2)
        #expect(badLimit.stderr.hasPrefix("switchyard logs: --limit needs a positive number, not '0'"))
    }

    @Test func followPrintsNewRunsAsTheyAreRecorded() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        #expect(try switchyard(["call", "ping", "--user", "before"], in: app.path).status == 0)
        let follower = try RunningSwitchyard(["logs", "--follow", "--limit", "1"], in: app.path)
        defer { follower.kill() }
        #expect(follower.lines(atLeast: 1).last?.contains("called by before") == true)
        #expect(try switchyard(["call", "ping", "--user", "after"], in: app.path).status == 0)
        let lines = follower.lines(atLeast: 2)
        #expect(lines.count == 2)
        #expect(lines.last?.contains("called by after") == true)
    }
}
