import Foundation

/// A child process run to its end, its input and output through files: no pipe to fill up, and none that a process
/// the child leaves running can hold open, so the wait ends when the child does. A child still running after its
/// `timeout` is killed and its run has SIGKILL's status, so a hung command fails its test instead of hanging the
/// suite.
public enum FinishedProcess {
    public struct Run: Sendable {
        /// The exit status, or the signal's number when a signal ended it.
        public var status: Int32
        public var endedBySignal: Bool
        public var output: String
        public var errors: String
    }

    /// Runs `executable` with `arguments` until it exits, without holding a thread: `stdin` is its input,
    /// `directory` its working directory, `environment` its environment (else this process's).
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String = "", in directory: String? = nil,
        environment: [String: String]? = nil, timeout: Duration = .seconds(300)
    ) async throws -> Run {
        let child = try Child(executable, arguments, stdin: stdin, in: directory, environment: environment)
        let process = child.process
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        defer { watchdog.cancel() }
        let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, Error>) in
            process.terminationHandler = { ended in continuation.resume(returning: ended.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return child.finished(status: status, endedBySignal: child.process.terminationReason == .uncaughtSignal)
    }

    /// `run`, waiting on the calling thread: for short tools in synchronous code (a key from `openssl`).
    public static func runWaiting(
        _ executable: String, _ arguments: [String], stdin: String = "", in directory: String? = nil,
        environment: [String: String]? = nil, timeout: TimeInterval = 300
    ) throws -> Run {
        let child = try Child(executable, arguments, stdin: stdin, in: directory, environment: environment)
        try child.process.run()
        guard let status = child.process.statusAfterExit(killingAfter: timeout) else {
            return child.finished(status: SIGKILL, endedBySignal: true)
        }
        return child.finished(status: status, endedBySignal: child.process.terminationReason == .uncaughtSignal)
    }

    /// A child set up to read its input from, and write its output into, files of a directory of its own.
    private struct Child {
        let process = Process()
        let directory: TemporaryDirectory
        let input: FileHandle
        let output: FileHandle
        let errors: FileHandle

        init(
            _ executable: String, _ arguments: [String], stdin: String, in workingDirectory: String?,
            environment: [String: String]?
        ) throws {
            directory = try TemporaryDirectory(prefix: "child")
            try directory.write("stdin", stdin)
            _ = FileManager.default.createFile(atPath: directory.path + "/stdout", contents: nil)
            _ = FileManager.default.createFile(atPath: directory.path + "/stderr", contents: nil)
            input = try FileHandle(forReadingFrom: URL(fileURLWithPath: directory.path + "/stdin"))
            output = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path + "/stdout"))
            errors = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path + "/stderr"))
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            if let environment { process.environment = environment }
            if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
        }

        func finished(status: Int32, endedBySignal: Bool) -> Run {
            try? input.close()
            try? output.close()
            try? errors.close()
            return Run(
                status: status, endedBySignal: endedBySignal, output: directory.read("stdout") ?? "",
                errors: directory.read("stderr") ?? "")
        }
    }
}
