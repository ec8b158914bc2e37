import Foundation
import TestSupport
import Testing

/// Every command line of the README's shell blocks runs against a scratch copy of the example app, so the
/// README cannot go stale. The README is read when the test runs: whoever edits it edits what runs.
///
/// How the README is read:
/// - a fenced `sh` block is run when one of its lines starts with `swift run switchyard` or `switchyard`; its
///   lines run in order, one `sh -c` each (lines ending in `\` join the next), with `swift run switchyard` being
///   the binary built beside the tests;
/// - a line must exit 0, unless its comment says otherwise with `exits N`;
/// - `serve` and `run` (which run until Ctrl-C) and `--follow` commands are started, given time to get going,
///   and stopped with Ctrl-C; `serve` listens on a free port unless the line gives `--port`;
/// - `import` and `init`, which make an app rather than use one, run in an empty directory beside the app, with
///   `~/export` an App Services export (the importer's fixture).
@Suite struct ReadmeCommandTests {
    struct CommandLine: CustomStringConvertible {
        var text: String
        var expectedStatus: Int32
        var description: String { text }

        /// Whether the command runs until it is stopped.
        var runsUntilStopped: Bool {
            let words = text.split(separator: " ")
            guard let command = words.dropFirst(words.first == "swift" ? 3 : 1).first else { return false }
            return command == "serve" || command == "run" || words.contains("--follow")
        }

        var makesAnApp: Bool {
            let words = text.split(separator: " ")
            guard let command = words.dropFirst(words.first == "swift" ? 3 : 1).first else { return false }
            return command == "import" || command == "init"
        }
    }

    /// The README's command lines, in order.
    static func commandLines() throws -> [CommandLine] {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [[String]] = []
        var current: [String]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil, line.hasPrefix("```sh") {
                current = []
            } else if current != nil, line.hasPrefix("```") {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        var commands: [CommandLine] = []
        for block in blocks {
            var joined: [String] = []
            for line in block {
                if let last = joined.last, last.hasSuffix("\\") {
                    joined[joined.count - 1] = String(last.dropLast()) + " " + line.trimmingCharacters(in: .whitespaces)
                } else {
                    joined.append(line)
                }
            }
            let lines = joined.map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty && !$0.hasPrefix("#")
            }
            guard lines.contains(where: { $0.hasPrefix("swift run switchyard ") || $0.hasPrefix("switchyard ") }) else {
                continue
            }
            for line in lines {
                commands.append(CommandLine(text: line, expectedStatus: expectedStatus(line)))
            }
        }
        return commands
    }

    /// `exits N` in a line's comment, else 0.
    static func expectedStatus(_ line: String) -> Int32 {
        guard let comment = line.range(of: " # ") else { return 0 }
        let words = line[comment.upperBound...].split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        guard let index = words.firstIndex(of: "exits"), index + 1 < words.count else { return 0 }
        return Int32(words[index + 1]) ?? 0
    }

    /// The command as `sh` runs it: the built binary for `swift run switchyard`, a free port for `serve`.
    static func shellText(_ line: CommandLine) -> String {
        var text = line.text
        if text.hasPrefix("swift run switchyard ") {
            text = "\"$README_SWITCHYARD\" " + text.dropFirst("swift run switchyard ".count)
        } else if text.hasPrefix("switchyard ") {
            text = "\"$README_SWITCHYARD\" " + text.dropFirst("switchyard ".count)
        }
        let words = text.split(separator: " ")
        if words.count > 1, words[1] == "serve", !words.contains("--port") {
            text = text.replacingOccurrences(
                of: "\"$README_SWITCHYARD\" serve", with: "\"$README_SWITCHYARD\" serve --port 0")
        }
        return line.runsUntilStopped ? "exec " + text : text
    }

    /// A scratch copy of the example app (its configuration; the functions are the binary's), inside a
    /// directory of its own so that `../book-shop` and the like stay in the scratch area.
    static func scratchApp(in root: TemporaryDirectory) throws -> String {
        let app = "\(root.path)/app"
        try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
        for entry in ["triggers.yaml", "values.json", "environments", "seed", "data_sources"] {
            let source = repositoryRoot.appendingPathComponent(entry).path
            guard FileManager.default.fileExists(atPath: source) else { continue }
            try FileManager.default.copyItem(atPath: source, toPath: "\(app)/\(entry)")
        }
        // `serve --import seed` comes before the README's `data export seed` writes it.
        try FileManager.default.createDirectory(atPath: "\(app)/seed", withIntermediateDirectories: true)
        // `serve --watch` rebuilds the package holding the app on a function edit (none happens here).
        FileManager.default.createFile(atPath: "\(app)/Package.swift", contents: Data())
        return app
    }

    @Test func everyCommandLineInTheReadmeRuns() async throws {
        let binary = try #require(switchyardExecutable).path
        let commands = try Self.commandLines()
        try #require(commands.count > 10, "found only \(commands)")
        let root = try TemporaryDirectory()
        let app = try Self.scratchApp(in: root)
        let home = "\(root.path)/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: repositoryRoot.appendingPathComponent("Tests/SwitchyardTests/Fixtures/BooksExport").path,
            toPath: "\(home)/export")
        let environment = ["README_SWITCHYARD": binary, "HOME": home]
        let shell = URL(fileURLWithPath: "/bin/sh")
        for (index, command) in commands.enumerated() {
            var directory = app
            if command.makesAnApp {
                directory = "\(root.path)/new-\(index)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            let text = Self.shellText(command)
            if command.runsUntilStopped {
                let running = try RunningSwitchyard(
                    ["-c", text], in: directory, environment: environment, executable: shell)
                // Going: it printed its first line (serve, run) or is still there after a moment (followers,
                // which print only what comes).
                if command.text.contains("--follow") {
                    try await Task.sleep(for: .seconds(2))
                } else {
                    _ = running.lines(atLeast: 1)
                }
                let status = running.interrupt()
                #expect(
                    status == 0 || (command.text.contains("--follow") && status == SIGINT),
                    "\(command): exit \(status)\n\(running.text)")
            } else {
                let run = try switchyard(["-c", text], in: directory, environment: environment, executable: shell)
                #expect(
                    run.status == command.expectedStatus,
                    "\(command): exit \(run.status)\n\(run.stdout)\(run.stderr)")
            }
        }
    }
}
