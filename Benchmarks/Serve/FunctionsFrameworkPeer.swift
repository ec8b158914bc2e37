import Foundation
import TestSupport

/// Google's Python `functions-framework` (PyPI, in a venv under .build) serving a no-op HTTP function.
final class FunctionsFrameworkPeer {
    let port: UInt16
    private let child: ChildProcess

    init(directory: String, venv: String) throws {
        if !FileManager.default.fileExists(atPath: "\(venv)/bin/functions-framework") {
            print("  (making \(venv) with functions-framework from PyPI)")
            try runCommand("/usr/bin/env", ["python3", "-m", "venv", venv])
            try runCommand("\(venv)/bin/pip", ["install", "--quiet", "functions-framework"])
        }
        let source = """
            import functions_framework

            @functions_framework.http
            def noop(request):
                return ("[]", 200, {"Content-Type": "application/json"})

            """
        try source.write(toFile: "\(directory)/main.py", atomically: true, encoding: .utf8)
        port = closedLoopbackPort()
        child = try ChildProcess(
            name: "functions-framework", executable: "\(venv)/bin/functions-framework",
            arguments: [
                "--target", "noop", "--source", "\(directory)/main.py", "--host", "127.0.0.1", "--port", "\(port)",
            ])
        guard waitUntilListening(port) else { throw BenchmarkFailure("functions-framework did not start") }
    }

    func stop() { child.kill() }
}
