import Foundation
import Messaging
import TestSupport
import Testing

/// One finished run of the `switchyard` executable.
struct SwitchyardRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

struct MissingExecutable: Error, CustomStringConvertible {
    var description: String { "no switchyard binary beside the tests; run `swift build --build-tests`" }
}

/// The binary sits next to the test bundle; `swift build --build-tests` builds it with the tests.
let switchyardExecutable: URL? = {
    let candidates = [
        Bundle.main.bundleURL.appendingPathComponent("switchyard"),
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("switchyard"),
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/switchyard"),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}()

/// The repository's root, for the example app and the importer's fixtures.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

func switchyard(_ arguments: String..., stdin: String = "") throws -> SwitchyardRun {
    try switchyard(arguments, stdin: stdin)
}

/// Runs the executable (by default this checkout's `switchyard`) in `directory` (else the test's own), with the
/// process environment minus `SWITCHYARD_*` variables plus `environment`, so a developer's settings never change
/// a result.
func switchyard(
    _ arguments: [String], stdin: String = "", in directory: String? = nil, environment: [String: String] = [:],
    executable: URL? = switchyardExecutable
) throws -> SwitchyardRun {
    guard let executable else { throw MissingExecutable() }
    let run = try FinishedProcess.runWaiting(
        executable.path, arguments, stdin: stdin, in: directory,
        environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SWITCHYARD_") }
            .merging(environment) { $1 })
    return SwitchyardRun(status: run.status, stdout: run.output, stderr: run.errors)
}

/// An app whose only function is `ping`, the callable the `Functions` target keeps for checking that calls get
/// through (the example app's own functions may not exist yet, and the binary checks names against them).
let pingApp = """
    appId: demo
    functions:
      ping:
        timeout: 5s
    # Every user may read and write every collection (the tests' clients write through mongodb-atlas).
    rules:
      default:
        roles:
          - {name: everyone, apply_when: {}, read: true, write: true, insert: true, delete: true}
    """

/// A `switchyard` process that keeps running (`--follow`), read as it writes. Stopped with SIGKILL, since a
/// Foundation child may inherit a blocked SIGTERM.
final class RunningSwitchyard: @unchecked Sendable {
    // Safe: `output` is only touched under `lock`; `process` is set up before the reading thread starts.
    private let process = Process()
    private let lock = NSCondition()
    private var output = ""
    private var ended = false

    /// Starts `executable` (by default this checkout's `switchyard`) with `arguments` in `directory`.
    init(
        _ arguments: [String], in directory: String, environment: [String: String] = [:],
        executable: URL? = switchyardExecutable
    ) throws {
        guard let executable else { throw MissingExecutable() }
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SWITCHYARD_") }
            .merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.readAvailable()
                lock.lock()
                if chunk.isEmpty { ended = true } else { output += String(decoding: chunk, as: UTF8.self) }
                lock.broadcast()
                lock.unlock()
                if chunk.isEmpty { return }
            }
        }
    }

    /// Waits until the output has `count` lines (or the process ends, or a minute passes, so a broken
    /// follower fails the test instead of hanging it); returns the output so far.
    func lines(atLeast count: Int) -> [String] {
        let deadline = Date().addingTimeInterval(60)
        lock.lock()
        defer { lock.unlock() }
        while output.filter({ $0 == "\n" }).count < count, !ended, lock.wait(until: deadline) {}
        return output.split(separator: "\n").map(String.init)
    }

    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
    }

    /// Sends Ctrl-C (or `signal`) and returns the exit status once the process ends (killing it after a minute,
    /// so a process that ignores the signal fails the test with SIGKILL's status instead of hanging it). It waits
    /// for the process itself, not its output's end: a child may close its output and go on running.
    func interrupt(with signal: Int32 = SIGINT) -> Int32 {
        Foundation.kill(process.processIdentifier, signal)
        return process.statusAfterExit() ?? SIGKILL
    }

    /// Everything written to standard output so far.
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return output
    }

    /// The JSON log lines (`serve --log-format json`) printed so far, as dictionaries.
    var logLines: [[String: Any]] {
        text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Waits for the `occurrence`th JSON log line whose message contains `text` and returns it; after `timeout`
    /// the test fails with the output so far.
    func awaitLine(containing text: String, occurrence: Int = 1, timeout: Duration = .seconds(60)) async throws
        -> [String: Any]
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let matches = logLines.filter { ($0["message"] as? String)?.contains(text) == true }
            if matches.count >= occurrence { return matches[occurrence - 1] }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no log line containing '\(text)' in:\n\(self.text)")
        throw CancellationError()
    }
}
