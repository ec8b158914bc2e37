import Foundation
import Messaging

/// How `serve --watch` rebuilds the functions: by default `swift build` of the running executable's product in
/// the package that holds the configuration, in the same build configuration; `--build-command` overrides it.
struct BuildCommand {
    let arguments: [String]

    var display: String { arguments.joined(separator: " ") }

    struct Result {
        var succeeded: Bool
        var output: String
        /// The compiler's `error:` lines and what follows them, for the terminal and the dashboard.
        var errors: String
        var killedBySignal: Bool
    }

    /// The default for an executable at `executable` serving the configuration in `directory`: its product,
    /// built in the build directory and configuration it was built in (`.build/debug/NAME` or
    /// `<scratch>/<triple>/release/NAME`); nil when no Package.swift is at or above the directory.
    static func swiftBuild(executable: String, configurationDirectory directory: String) -> BuildCommand? {
        var package = URL(fileURLWithPath: directory).standardizedFileURL
        while !FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path) {
            guard package.path != "/" else { return nil }
            package = package.deletingLastPathComponent()
        }
        let binary = URL(fileURLWithPath: executable).standardizedFileURL
        var arguments = ["swift", "build", "--package-path", package.path, "--product", binary.lastPathComponent]
        let products = binary.deletingLastPathComponent()
        guard ["debug", "release"].contains(products.lastPathComponent) else {
            return BuildCommand(arguments: arguments)
        }
        // `<scratch>/debug` is a link to `<scratch>/<triple>/debug`, the path a running binary resolves to.
        let parent = products.deletingLastPathComponent()
        let isTriple = parent.lastPathComponent.split(separator: "-").count >= 3
        let scratch = isTriple ? parent.deletingLastPathComponent() : parent
        if scratch.path != package.appendingPathComponent(".build").path {
            arguments += ["--scratch-path", scratch.path]
        }
        if products.lastPathComponent == "release" { arguments += ["-c", "release"] }
        return BuildCommand(arguments: arguments)
    }

    /// A command line run by `/bin/sh -c`.
    static func shell(_ command: String) -> BuildCommand {
        BuildCommand(arguments: ["/bin/sh", "-c", command])
    }

    /// Runs the command, once more when it was killed by a signal: SwiftPM now and then dies of SIGSEGV in
    /// libdispatch's event loop (swiftlang/swift#87033), which says nothing about the functions' code.
    func run() async -> Result {
        let first = await runOnce()
        guard first.killedBySignal else { return first }
        return await runOnce()
    }

    private func runOnce() async -> Result {
        await withCheckedContinuation { continuation in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            process.terminationHandler = { _ in }
            do {
                try process.run()
            } catch {
                continuation.resume(
                    returning: Result(succeeded: false, output: "\(error)", errors: "\(error)", killedBySignal: false))
                return
            }
            let running = RunningBuild(process: process, pipe: pipe)
            Thread.detachNewThread {
                let (process, pipe) = (running.process, running.pipe)
                let data = pipe.fileHandleForReading.readUntilEnd()
                process.waitUntilExit()
                var output = String(decoding: data, as: UTF8.self)
                let killed = process.terminationReason == .uncaughtSignal
                if killed { output += "\(display) was killed by signal \(process.terminationStatus)\n" }
                continuation.resume(
                    returning: Result(
                        succeeded: !killed && process.terminationStatus == 0, output: output,
                        errors: Self.errors(in: output), killedBySignal: killed))
            }
        }
    }

    /// The build's process and output, handed to the thread that waits for them (its only user from then on).
    private struct RunningBuild: @unchecked Sendable {
        let process: Process
        let pipe: Pipe
    }

    static func errors(in output: String) -> String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        var kept: [Substring] = []
        var inError = false
        for line in lines {
            if line.contains("error:") {
                inError = true
            } else if line.contains("warning:") || line.hasPrefix("[") || line.hasPrefix("Building") {
                inError = false
            }
            if inError { kept.append(line) }
        }
        return kept.joined(separator: "\n")
    }
}
