import Foundation
import Synchronization

/// A task executor that holds every job until the test opens it, then runs each on a thread of its own: work sent
/// to it is parked for as long as the test wants, so a test can prove what goes on while that work is in flight
/// without timing anything.
final class GatedExecutor: TaskExecutor, Sendable {
    private struct State {
        var parked: [UnownedJob] = []
        var isOpen = false
        /// Jobs ever received, parked or run.
        var received = 0
    }

    private let state = Mutex(State())

    var received: Int { state.withLock { $0.received } }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let runNow = state.withLock { state in
            state.received += 1
            if !state.isOpen { state.parked.append(job) }
            return state.isOpen
        }
        if runNow { run(job) }
    }

    func open() {
        let parked = state.withLock { state in
            state.isOpen = true
            defer { state.parked = [] }
            return state.parked
        }
        for job in parked { run(job) }
    }

    /// Waits (without a deadline: the suite's time limit bounds it) until `count` jobs have arrived.
    func waitForJobs(_ count: Int) async throws {
        while received < count { try await Task.sleep(for: .milliseconds(5)) }
    }

    private func run(_ job: UnownedJob) {
        let executor = asUnownedTaskExecutor()
        Thread { job.runSynchronously(on: executor) }.start()
    }
}
