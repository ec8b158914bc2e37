import Foundation
import Switchyard

/// `serve --watch`: keeps a `serve` child running and reacts to saves. A change to triggers.yaml, values.json
/// or environments/ is sent to the child as SIGHUP (it validates and applies it without a restart). A change
/// under functions/ runs an incremental build; when it succeeds the child stops cleanly (functions finish,
/// trigger tokens are saved) and the rebuilt server starts on the same port and data directory, resuming every
/// trigger from its token. While a build runs, or when it fails, the old server keeps serving; the build's
/// state and errors are written to `<data-dir>/build.json` for the dashboard.
struct WatchSupervisor {
    let executable: String
    let childArguments: [String]
    /// Added for the first server only (`--import`: a restart must not import over the data again).
    let firstStartArguments: [String]
    let configurationDirectory: String
    let dataDirectory: String
    let build: BuildCommand
    /// `--config` and `--environment` for `switchyard validate`.
    let validationArguments: [String]
    let log: ServeLog

    /// Runs until SIGINT or SIGTERM, which stop the child first.
    func run() async -> Int32 {
        let stop = StopSignal()
        let child = ChildServer(executable: executable, arguments: childArguments, log: log)
        do {
            try child.start(adding: firstStartArguments)
        } catch {
            log.problem("switchyard serve --watch: cannot start the server: \(error)")
            return 1
        }
        let functions = "\(configurationDirectory)/functions"
        var directories = [FileWatcher.Directory(path: configurationDirectory, recursive: false)]
        if FileManager.default.fileExists(atPath: functions) {
            directories.append(FileWatcher.Directory(path: functions, recursive: true))
        }
        if FileManager.default.fileExists(atPath: "\(configurationDirectory)/environments") {
            directories.append(FileWatcher.Directory(path: "\(configurationDirectory)/environments", recursive: false))
        }
        // Data access rules and schemas (`data_sources/<service>/<db>/<collection>/…`) reload as the rest does.
        if FileManager.default.fileExists(atPath: "\(configurationDirectory)/data_sources") {
            directories.append(FileWatcher.Directory(path: "\(configurationDirectory)/data_sources", recursive: true))
        }
        let (changes, continuation) = AsyncStream.makeStream(of: Set<String>.self)
        let watcher: FileWatcher
        do {
            watcher = try FileWatcher(directories) { continuation.yield($0) }
        } catch {
            child.stop()
            log.problem("switchyard serve --watch: \(error)")
            return 1
        }
        log.event("watching \(directories.map(\.path).joined(separator: ", ")) (build: \(build.display))")
        let reacting = Task {
            for await changed in changes {
                await react(to: changed, functions: functions, child: child)
            }
        }
        _ = await stop.wait()
        watcher.stop()
        continuation.finish()
        reacting.cancel()
        child.stop()
        return 0
    }

    private func react(to changed: Set<String>, functions: String, child: ChildServer) async {
        let configurationFiles: Set<String> = [AppConfiguration.triggersFile, "values.json"]
        let codeChanged = changed.contains { $0.hasPrefix(functions + "/") }
        let configurationChanged = changed.contains { path in
            configurationFiles.contains((path as NSString).lastPathComponent)
                || path.hasPrefix("\(configurationDirectory)/environments/")
                || path.hasPrefix("\(configurationDirectory)/data_sources/")
        }
        if codeChanged {
            await rebuild(child: child)
        } else if configurationChanged {
            log.event("configuration changed; reloading")
            child.hangUp()
        }
    }

    private func rebuild(child: ChildServer) async {
        log.event("functions changed; building (\(build.display))")
        record(BuildStatus(state: .building))
        let started = ContinuousClock.now
        let result = await build.run()
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        guard result.succeeded else {
            let errors = result.errors.isEmpty ? result.output : result.errors
            record(BuildStatus(state: .failed, output: errors))
            log.problem("the build failed; the previous server keeps serving:\n\(errors)")
            return
        }
        // The rebuilt server must accept the configuration before the running one stops.
        let check = await BuildCommand(arguments: [executable, "validate"] + validationArguments).run()
        guard check.succeeded else {
            record(BuildStatus(state: .failed, output: check.output))
            log.problem(
                "built in \(String(format: "%.1f", seconds)) s, but the configuration does not load with the new functions; the previous server keeps serving:\n\(check.output)"
            )
            return
        }
        record(BuildStatus(state: .succeeded))
        log.event("built in \(String(format: "%.2f", seconds)) s; restarting the server")
        child.stop()
        do {
            try child.start()
        } catch {
            log.problem("cannot restart the server: \(error)")
        }
    }

    /// Writes `build.json` for the dashboard; failing to is worth a line, not a stop.
    private func record(_ status: BuildStatus) {
        do {
            try status.write(dataDirectory: dataDirectory)
        } catch {
            log.problem("cannot write \(dataDirectory)/\(BuildStatus.file): \(error)")
        }
    }
}

/// The `serve` process the supervisor keeps: started with the same arguments (minus `--watch`), stopped with
/// SIGINT so it finishes running functions and saves trigger state, killed only if it does not stop in 30 s.
final class ChildServer: @unchecked Sendable {
    // Used only from the supervisor's one reacting task and its final stop, never at once.
    private var process: Process?
    let executable: String
    let arguments: [String]
    let log: ServeLog

    init(executable: String, arguments: [String], log: ServeLog) {
        self.executable = executable
        self.arguments = arguments
        self.log = log
    }

    func start(adding extra: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + extra
        process.environment = ProcessInfo.processInfo.environment.merging(
            [ServeCommand.supervisorVariable: "\(getpid())"]) { $1 }
        let log = self.log
        process.terminationHandler = { ended in
            // SIGINT is the supervisor stopping it; anything else the operator should hear about.
            guard ended.terminationReason != .uncaughtSignal || ended.terminationStatus != SIGINT,
                ended.terminationStatus != 0
            else { return }
            log.problem("the server exited with status \(ended.terminationStatus); the next saved change restarts it")
        }
        try process.run()
        self.process = process
    }

    func hangUp() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGHUP)
    }

    func stop() {
        guard let process else { return }
        self.process = nil
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGINT)
        let deadline = Date(timeIntervalSinceNow: 30)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
