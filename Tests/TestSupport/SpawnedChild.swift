import Foundation
import Synchronization

/// A child process started with `posix_spawn`, its standard input, output and error opened from files, every other
/// descriptor of the test process closed, and its end heard by a thread of its own blocked in `waitpid`.
///
/// Foundation's `Process.run()` (Swift 6.3.1) reads 256 bytes of every `/proc/self/fd` entry and now and then
/// crashes a test process that has many descriptors open (swiftlang/swift-corelibs-foundation#5472); the helpers
/// that start most of the suite's children use this instead.
final class SpawnedChild: Sendable {
    let pid: pid_t
    private let end = Mutex<End>(End())

    private struct End {
        var termination: Termination?
        var waiters: [CheckedContinuation<Termination, Never>] = []
    }

    struct Termination: Sendable {
        /// The exit status, or the signal's number when a signal ended it.
        var status: Int32
        var endedBySignal: Bool
    }

    /// Starts `executable` with `arguments` and `environment` in `directory` (else this process's), its standard
    /// streams read from and written to the three paths.
    init(
        _ executable: String, _ arguments: [String], environment: [String: String], in directory: String?,
        input: String, output: String, errors: String
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try addClosingOfInheritedDescriptors(&actions)
        if let directory { try addChangeOfDirectory(&actions, to: directory) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        resetSignals(&attributes)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for entry in envp { free(entry) } }
        var spawned: pid_t = 0
        let status = posix_spawn(&spawned, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw SpawnError("cannot start \(executable): \(String(cString: strerror(status)))")
        }
        let pid = spawned
        self.pid = pid
        Thread.detachNewThread { [self] in
            var waitStatus: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(pid, &waitStatus, 0) } while reaped == -1 && errno == EINTR
            // WIFEXITED and WEXITSTATUS are macros: exited normally when the low 7 bits are 0, status in the next 8.
            let signal = waitStatus & 0x7f
            let termination =
                reaped == pid && signal == 0
                ? Termination(status: (waitStatus >> 8) & 0xff, endedBySignal: false)
                : Termination(status: reaped == pid ? signal : SIGKILL, endedBySignal: true)
            let waiters = end.withLock { end in
                end.termination = termination
                defer { end.waiters = [] }
                return end.waiters
            }
            for waiter in waiters { waiter.resume(returning: termination) }
        }
    }

    var isRunning: Bool { end.withLock { $0.termination == nil } }

    /// Sends `signal` while the child runs (never to a reaped pid, which the system may have given to another).
    func kill(_ signal: Int32 = SIGKILL) {
        end.withLock { end in
            if end.termination == nil { _ = Foundation.kill(pid, signal) }
        }
    }

    /// How the child ended, once it has.
    func termination() async -> Termination {
        await withCheckedContinuation { continuation in
            let ended = end.withLock { end in
                if end.termination == nil { end.waiters.append(continuation) }
                return end.termination
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    /// How the child ended, waiting on the calling thread for at most `timeout`; nil when it still runs.
    func termination(within timeout: TimeInterval) -> Termination? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let ended = end.withLock({ $0.termination }) { return ended }
            usleep(5_000)
        }
        return end.withLock { $0.termination }
    }
}

/// Adds to `actions` a change of the child's working directory to `directory` (glibc's
/// `posix_spawn_file_actions_addchdir_np`, looked up at run time as the other GNU extensions are).
private func addChangeOfDirectory(_ actions: inout posix_spawn_file_actions_t, to directory: String) throws {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else {
        throw SpawnError("this C library has no posix_spawn_file_actions_addchdir_np (glibc 2.29 or later has)")
    }
    let addChdir = unsafeBitCast(
        symbol,
        to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
    let status = directory.withCString { addChdir(&actions, $0) }
    guard status == 0 else {
        throw SpawnError("posix_spawn_file_actions_addchdir_np: \(String(cString: strerror(status)))")
    }
}
