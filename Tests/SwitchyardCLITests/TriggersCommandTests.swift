import Foundation
import TestSupport
import Testing

@Suite struct TriggersCommandTests {
    @Test func anAppWithoutTriggersPrintsTheHeaderOnly() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let run = try switchyard(["triggers"], in: app.path)
        #expect(run.status == 0)
        #expect(run.stdout == "NAME  TYPE  ORDER  FUNCTION  STATE  PROCESSED  FAILED  DEAD  PENDING  LAG  LAST EVENT\n")
        // Reading the state never creates the data directory.
        #expect(!FileManager.default.fileExists(atPath: "\(app.path)/.switchyard"))
    }

    @Test func whileServeRunsTheRowsAreWhatTheServerReports() throws {
        let app = try TemporaryDirectory()
        try app.write("values.json", #"{"booksTopic": "books"}"#)
        try app.write(
            "triggers.yaml",
            """
            triggers:
              - {name: sendBooksTopic, type: database, function: sentTopicNotification, database: product, collection: book, operations: [INSERT]}
            """)
        // The trigger's row (the lines under it say more).
        func row(_ run: SwitchyardRun) -> Substring? {
            run.stdout.split(separator: "\n").first { $0.hasPrefix("sendBooksTopic ") }
        }
        let stopped = try switchyard(["triggers"], in: app.path)
        #expect(row(stopped)?.contains(" stopped ") == true, "\(stopped.stdout)")
        #expect(row(stopped)?.contains(" ordered ") == true, "\(stopped.stdout)")
        let server = try RunningSwitchyard(["serve", "--port", "0"], in: app.path)
        defer { _ = server.interrupt() }
        #expect(server.lines(atLeast: 1).isEmpty == false)
        // The server starts its triggers' tasks as it starts serving; each reports running once its stream is open,
        // which the whole suite's load on two cores has delayed past 30 s.
        var running = try switchyard(["triggers"], in: app.path)
        let deadline = Date().addingTimeInterval(90)
        while row(running)?.contains(" running ") != true, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            running = try switchyard(["triggers"], in: app.path)
        }
        #expect(running.status == 0, "\(running.stderr)")
        #expect(row(running)?.contains(" running ") == true, "\(running.stdout)")
        // Running and caught up, it beats now; the server reports its ordering too.
        #expect(running.stdout.contains("\n  heartbeat "), "\(running.stdout)")
        #expect(row(running)?.contains(" ordered ") == true, "\(running.stdout)")
        // `resume` asks the running server, which says the trigger is not suspended (not: the directory is in use).
        let resume = try switchyard(["resume", "sendBooksTopic", "--skip"], in: app.path)
        #expect(resume.status == 2)
        #expect(resume.stderr == "switchyard resume: trigger 'sendBooksTopic' is not suspended\n")
        #expect(running.stderr.isEmpty)
    }

    @Test func anInvalidConfigurationIsBadInput() throws {
        let app = try TemporaryDirectory()
        let run = try switchyard(["triggers", "--config", app.path])
        #expect(run.status == 2)
        #expect(run.stderr == "\(app.path)/triggers.yaml: file not found\n")
    }
}

@Suite struct ResumeCommandTests {
    @Test func anUnknownTriggerOrConflictingFlagsAreBadInput() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let unknown = try switchyard(["resume", "sendBooksTopic"], in: app.path)
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "switchyard resume: no trigger named 'sendBooksTopic'\n")
        let both = try switchyard(["resume", "t", "--skip", "--from-token"], in: app.path)
        #expect(both.status == 2)
        #expect(both.stderr.hasPrefix("switchyard resume: --from-token and --skip exclude each other"))
        let missing = try switchyard(["resume"], in: app.path)
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("switchyard resume: missing TRIGGER"))
    }
}
