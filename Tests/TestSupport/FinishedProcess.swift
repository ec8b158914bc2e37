import Foundation

/// A child process run to its end, its output collected through files (no pipe to fill up) and its end awaited
/// without holding a thread.
public enum FinishedProcess {
    public struct Run: Sendable {
        public var status: Int32
        public var output: String
        public var errors: String
    }

    /// Runs `executable` with `arguments` (and `environment`, else this process's) until it exits.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil)
        async throws -> Run
    {
        let directory = try TemporaryDirectory(prefix: "child")
        let outputPath = directory.path + "/stdout"
        let errorPath = directory.path + "/stderr"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, Error>) in
            process.terminationHandler = { ended in continuation.resume(returning: ended.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try? output.close()
        try? errors.close()
        return Run(status: status, output: directory.read("stdout") ?? "", errors: directory.read("stderr") ?? "")
    }
}
