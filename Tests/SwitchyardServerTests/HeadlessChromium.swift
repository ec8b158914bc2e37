import BSON
import Foundation
import Synchronization
import TestSupport

/// Debian's `chromium`, headless, driven through the DevTools protocol over `--remote-debugging-pipe`: JSON
/// messages ending in a NUL byte, written to the browser's fd 3 and read from its fd 4 (no WebSocket needed).
/// The browser runs in a process group of its own, killed whole by `close()`.
final class HeadlessChromium: Sendable {
    /// One page (tab) the browser shows, attached in flat mode.
    struct Page: Sendable {
        let browser: HeadlessChromium
        let session: String

        /// Evaluates `expression` in the page (awaiting it when it is a promise); its value as BSON.
        @discardableResult
        func evaluate(_ expression: String) async throws -> BSON {
            let answer = try await browser.call(
                "Runtime.evaluate",
                ["expression": .string(expression), "returnByValue": true, "awaitPromise": true], session: session)
            if let exception = answer["exceptionDetails"]?.documentValue {
                throw BrowserError("the page threw: \(exception.extendedJSON(mode: .relaxed))")
            }
            return answer["result"]?.documentValue?["value"] ?? .undefined
        }

        /// Waits until `condition` (a JavaScript expression) is true in the page, checking every 100 ms.
        /// - Throws: when `timeout` passes first, with `describe`'s value for the failure message.
        func wait(
            until condition: String, describe: String = "document.body.innerText.slice(0, 2000)",
            timeout: Duration = .seconds(30)
        ) async throws {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if (try? await evaluate("Boolean(\(condition))")) == .bool(true) { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            let state = (try? await evaluate(describe)).map { "\($0)" } ?? "?"
            throw BrowserError("timed out waiting for \(condition); the page shows: \(state)")
        }

        /// A PNG of the page as it is drawn now.
        func screenshot() async throws -> Data {
            let answer = try await browser.call("Page.captureScreenshot", ["format": "png"], session: session)
            guard let encoded = answer["data"]?.stringValue, let data = Data(base64Encoded: encoded) else {
                throw BrowserError("no screenshot data")
            }
            return data
        }
    }

    /// The executable, when one is installed.
    static var executable: String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for directory in paths where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        return nil
    }

    private let process: pid_t
    private let toBrowser: Int32
    private let state = Mutex(State())
    private let killed = Atomic(false)

    private struct State {
        var nextId = 0
        var pending: [Int: CheckedContinuation<BSONDocument, any Error>] = [:]
        var closed = false
    }

    /// Starts the browser with a profile in `profileDirectory` (which must exist and be the browser's alone).
    init(profileDirectory: String, windowSize: (width: Int, height: Int) = (1280, 900)) throws {
        guard let executable = Self.executable else { throw BrowserError("no chromium in PATH") }
        let arguments = [
            executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--remote-debugging-pipe",
            "--user-data-dir=\(profileDirectory)", "--window-size=\(windowSize.width),\(windowSize.height)",
            "about:blank",
        ]
        // Pipes moved above the descriptors the child gets, so the dup2s cannot collide.
        func pipePair() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw BrowserError("pipe: \(errno)") }
            let read = fcntl(fds[0], F_DUPFD_CLOEXEC, 10)
            let write = fcntl(fds[1], F_DUPFD_CLOEXEC, 10)
            Foundation.close(fds[0])
            Foundation.close(fds[1])
            return (read, write)
        }
        let commands = try pipePair()
        let replies = try pipePair()

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, commands.read, 3)
        posix_spawn_file_actions_adddup2(&actions, replies.write, 4)
        let log = "\(profileDirectory)/chromium.log"
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        do {
            try addClosingOfInheritedDescriptors(&actions, from: 5)
        } catch {
            for pipeEnd in [commands.read, commands.write, replies.read, replies.write] { Foundation.close(pipeEnd) }
            throw error
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group (killed whole).
        posix_spawnattr_setpgroup(&attributes, 0)
        resetSignals(&attributes, flags: Int32(POSIX_SPAWN_SETPGROUP))

        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        Foundation.close(commands.read)
        Foundation.close(replies.write)
        guard status == 0 else {
            Foundation.close(commands.write)
            Foundation.close(replies.read)
            throw BrowserError("cannot start \(executable): \(String(cString: strerror(status)))")
        }
        process = pid
        toBrowser = commands.write
        let fromBrowser = replies.read
        Thread { [self] in readReplies(fromBrowser) }.start()
    }

    deinit { close() }

    /// Opens `url` in a new page.
    func open(_ url: String) async throws -> Page {
        let target = try await call("Target.createTarget", ["url": "about:blank"])
        guard let targetId = target["targetId"]?.stringValue else { throw BrowserError("no target id") }
        let attached = try await call("Target.attachToTarget", ["targetId": .string(targetId), "flatten": true])
        guard let session = attached["sessionId"]?.stringValue else { throw BrowserError("no session id") }
        let page = Page(browser: self, session: session)
        _ = try await call("Page.enable", [:], session: session)
        _ = try await call("Page.navigate", ["url": .string(url)], session: session)
        return page
    }

    /// Kills the browser and every process it started.
    func close() {
        state.withLock { $0.closed = true }
        guard !killed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        kill(-process, SIGKILL)
        Foundation.close(toBrowser)
        let pid = process
        // Reaping waits for the kill to land: not on the concurrency pool.
        Thread { waitpid(pid, nil, 0) }.start()
    }

    /// Sends one command and waits for its answer's `result`.
    func call(_ method: String, _ parameters: BSONDocument = [:], session: String? = nil) async throws
        -> BSONDocument
    {
        let answer = try await withCheckedThrowingContinuation {
            (reply: CheckedContinuation<BSONDocument, any Error>) in
            let id: Int? = state.withLock { state in
                guard !state.closed else { return nil }
                state.nextId += 1
                state.pending[state.nextId] = reply
                return state.nextId
            }
            guard let id else {
                reply.resume(throwing: BrowserError("the browser is closed"))
                return
            }
            var message: BSONDocument = [
                "id": .int64(Int64(id)), "method": .string(method), "params": .document(parameters),
            ]
            if let session { message.append("sessionId", .string(session)) }
            let bytes = Array(message.extendedJSON(mode: .relaxed).utf8) + [0]
            let written = bytes.withUnsafeBytes { write(toBrowser, $0.baseAddress, $0.count) }
            if written != bytes.count {
                let waiting = state.withLock { $0.pending.removeValue(forKey: id) }
                waiting?.resume(throwing: BrowserError("cannot write to the browser: \(errno)"))
            }
        }
        if let error = answer["error"]?.documentValue {
            throw BrowserError("\(method) failed: \(error.extendedJSON(mode: .relaxed))")
        }
        return answer["result"]?.documentValue ?? [:]
    }

    /// The reading thread: hands each answer to the call waiting for it; events are not used.
    private func readReplies(_ descriptor: Int32) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            buffer += chunk[..<count]
            while let end = buffer.firstIndex(of: 0) {
                let message = try? ExtendedJSON.parseDocument(buffer[..<end])
                buffer.removeSubrange(...end)
                guard let message, let id = message["id"]?.int64Value else { continue }
                let waiting = state.withLock { $0.pending.removeValue(forKey: Int(id)) }
                waiting?.resume(returning: message)
            }
        }
        Foundation.close(descriptor)
        let orphans = state.withLock { state in
            state.closed = true
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        for orphan in orphans { orphan.resume(throwing: BrowserError("the browser exited")) }
    }

    struct BrowserError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
