import Foundation

/// A child process run to its end (started with `posix_spawn`: see `SpawnedChild`), its input and output through
/// files: no pipe to fill up, and none that a process the child leaves running can hold open, so the wait ends when
/// the child does. A child still running after its
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
        let files = try Files(stdin: stdin)
        let child = try files.start(executable, arguments, in: directory, environment: environment)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            child.kill()
        }
        defer { watchdog.cancel() }
        return files.finished(await child.termination())
    }

    /// `run`, waiting on the calling thread: for short tools in synchronous code (a key from `openssl`).
    public static func runWaiting(
        _ executable: String, _ arguments: [String], stdin: String = "", in directory: String? = nil,
        environment: [String: String]? = nil, timeout: TimeInterval = 300
    ) throws -> Run {
        let files = try Files(stdin: stdin)
        let child = try files.start(executable, arguments, in: directory, environment: environment)
        if let ended = child.termination(within: timeout) { return files.finished(ended) }
        child.kill()
        return files.finished(child.termination(within: timeout) ?? .init(status: SIGKILL, endedBySignal: true))
    }

    /// A child's input and output files, in a directory of their own.
    private struct Files {
        let directory: TemporaryDirectory

        init(stdin: String) throws {
            directory = try TemporaryDirectory(prefix: "child")
            try directory.write("stdin", stdin)
        }

        func start(
            _ executable: String, _ arguments: [String], in workingDirectory: String?, environment: [String: String]?
        )
            throws -> SpawnedChild
        {
            try SpawnedChild(
                executable, arguments, environment: environment ?? ProcessInfo.processInfo.environment,
                in: workingDirectory, input: directory.path + "/stdin", output: directory.path + "/stdout",
                errors: directory.path + "/stderr")
        }

        func finished(_ termination: SpawnedChild.Termination) -> Run {
            Run(
                status: termination.status, endedBySignal: termination.endedBySignal,
                output: directory.read("stdout") ?? "", errors: directory.read("stderr") ?? "")
        }
    }
}
