import Foundation
import Testing

/// The `ejson` command and the tool's own options, run as a user would.
@Suite struct SwitchyardCLITests {
    func temporaryFile(_ contents: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("input.json")
        try Data(contents.utf8).write(to: file)
        return file
    }

    @Test func versionAndHelp() throws {
        let version = try switchyard("--version")
        #expect(version.status == 0)
        #expect(version.stdout == "switchyard 0.1.0\n")
        let help = try switchyard("--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("ejson"))
        let ejsonHelp = try switchyard("ejson", "--help")
        #expect(ejsonHelp.status == 0)
        #expect(ejsonHelp.stdout.contains("--relaxed"))
    }

    @Test func usageErrorsPrintUsageAndExitWithStatus2() throws {
        for arguments in [
            [], ["--bogus"], ["bogus"], ["ejson", "--bogus"], ["ejson", "a", "b"],
            ["ejson", "--canonical", "--relaxed"],
        ] {
            let process = try switchyard(arguments)
            #expect(process.status == 2, "\(arguments)")
            #expect(process.stderr.contains("USAGE: switchyard"), "\(arguments)")
            #expect(process.stdout.isEmpty)
        }
    }

    @Test func printsEachDocumentOfAnArrayOnItsOwnLine() throws {
        let file = try temporaryFile(
            #"[ {"a": 1, "when": {"$date": "2024-03-15T09:41:07.250Z"}}, {"b": {"$numberLong": "5"}} ]"#)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let relaxed = try switchyard("ejson", "--relaxed", file.path)
        #expect(relaxed.status == 0)
        #expect(relaxed.stdout == "{\"a\":1,\"when\":{\"$date\":\"2024-03-15T09:41:07.250Z\"}}\n{\"b\":5}\n")
        let canonical = try switchyard("ejson", file.path)
        #expect(
            canonical.stdout
                == "{\"a\":{\"$numberInt\":\"1\"},\"when\":{\"$date\":{\"$numberLong\":\"1710495667250\"}}}\n"
                + "{\"b\":{\"$numberLong\":\"5\"}}\n")
    }

    @Test func readsStandardInputByDefault() throws {
        let run = try switchyard("ejson", "--canonical", stdin: #"{"x": 1.5}"#)
        #expect(run.status == 0)
        #expect(run.stdout == "{\"x\":{\"$numberDouble\":\"1.5\"}}\n")
        let dash = try switchyard("ejson", "-", stdin: #"{"x": true}"#)
        #expect(dash.stdout == "{\"x\":true}\n")
    }

    @Test func badInputIsReportedWithFileLineAndColumn() throws {
        let file = try temporaryFile("{\n  \"a\": {\"$oid\": \"xyz\"}\n}")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let run = try switchyard("ejson", file.path)
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "\(file.path):2:8: $oid must be 24 hexadecimal digits\n")
        let stdin = try switchyard("ejson", stdin: "{\"a\": 1,}")
        #expect(stdin.status == 2)
        #expect(stdin.stderr == "<stdin>:1:9: expected '\"' to start a key after ','\n")
    }

    @Test func anUnreadableFileIsAFailure() throws {
        let run = try switchyard("ejson", "/nonexistent/switchyard-input.json")
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot read /nonexistent/switchyard-input.json"))
    }
}
