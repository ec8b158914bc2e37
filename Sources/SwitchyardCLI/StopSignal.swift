import Dispatch
import Foundation
import Synchronization

/// Waits for Ctrl-C (SIGINT) or SIGTERM, so `run` can stop the app cleanly: running functions finish and
/// trigger state is saved before the process exits.
final class StopSignal: Sendable {
    private let mailbox = Mailbox()
    // Safe: set once in `init` and only cancelled in `deinit`; dispatch sources are thread-safe.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    /// Takes over SIGINT and SIGTERM from now on (before the app starts, so an early signal is not lost).
    init() {
        let mailbox = self.mailbox
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { mailbox.deliver(number) }
            source.resume()
            return source
        }
    }

    /// The first signal received, once it arrives.
    func wait() async -> Int32 {
        await mailbox.wait()
    }

    /// `wait()`, or SIGTERM's number once the process `supervisor` (a pid, when given) is no longer this
    /// process's parent.
    func wait(orUntilSupervisorExits supervisor: String?) async -> Int32 {
        guard let supervisor, let pid = Int32(supervisor) else { return await wait() }
        let mailbox = self.mailbox
        let watching = Task.detached {
            while !Task.isCancelled {
                if getppid() != pid {
                    mailbox.deliver(SIGTERM)
                    return
                }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        defer { watching.cancel() }
        return await wait()
    }

    deinit {
        for source in sources { source.cancel() }
    }

    private final class Mailbox: Sendable {
        private let state = Mutex<(received: Int32?, waiter: CheckedContinuation<Int32, Never>?)>((nil, nil))

        func wait() async -> Int32 {
            await withCheckedContinuation { continuation in
                let received = state.withLock { state -> Int32? in
                    if state.received == nil { state.waiter = continuation }
                    return state.received
                }
                if let received { continuation.resume(returning: received) }
            }
        }

        func deliver(_ number: Int32) {
            let waiter = state.withLock { state -> CheckedContinuation<Int32, Never>? in
                guard state.received == nil else { return nil }
                state.received = number
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: number)
        }
    }
}
