import Foundation

/// A child process run to its end, its output collected through files: no pipe to fill up, and none that a process
/// the child leaves running can hold open, so the wait ends when the child does.
public enum FinishedProcess {
    public struct Run: Sendable {
        /// The exit status, or the signal's number when a signal ended it.
        public var status: Int32
        public var endedBySignal: Bool
        public var output: String
        public var errors: String
    }

    /// Runs `executable` with `arguments` (and `environment`, else this process's) until it exits, without holding
    /// a thread.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil)
        async throws -> Run
    {
        let child = try Child(executable, arguments, environment: environment)
        let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, Error>) in
            child.process.terminationHandler = { ended in continuation.resume(returning: ended.terminationStatus) }
            do {
                try child.process.run()
            } catch {
                child.process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return child.finished(status: status, endedBySignal: child.process.terminationReason == .uncaughtSignal)
    }

    /// Runs `executable` until it exits, waiting on the calling thread (for synchronous tests): `stdin` is its
    /// input, `directory` its working directory. A child still running after `timeout` is killed and its run has
    /// SIGKILL's status, so a hung command fails its test instead of hanging the suite.
    public static func runWaiting(
        _ executable: String, _ arguments: [String], stdin: String = "", in directory: String? = nil,
        environment: [String: String]? = nil, timeout: TimeInterval = 300
    ) throws -> Run {
        let child = try Child(executable, arguments, environment: environment)
        if let directory { child.process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let input = Pipe()
        child.process.standardInput = input
        try child.process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        guard let status = child.process.statusAfterExit(killingAfter: timeout) else {
            return child.finished(status: SIGKILL, endedBySignal: true)
        }
        return child.finished(status: status, endedBySignal: child.process.terminationReason == .uncaughtSignal)
    }

    /// A child set up to write its output into files of a directory of its own.
    private struct Child {
        let process = Process()
        let directory: TemporaryDirectory
        let output: FileHandle
        let errors: FileHandle

        init(_ executable: String, _ arguments: [String], environment: [String: String]?) throws {
            directory = try TemporaryDirectory(prefix: "child")
            _ = FileManager.default.createFile(atPath: directory.path + "/stdout", contents: nil)
            _ = FileManager.default.createFile(atPath: directory.path + "/stderr", contents: nil)
            output = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path + "/stdout"))
            errors = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path + "/stderr"))
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            if let environment { process.environment = environment }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = errors
        }

        func finished(status: Int32, endedBySignal: Bool) -> Run {
            try? output.close()
            try? errors.close()
            return Run(
                status: status, endedBySignal: endedBySignal, output: directory.read("stdout") ?? "",
                errors: directory.read("stderr") ?? "")
        }
    }
}
