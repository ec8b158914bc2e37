import Foundation

/// Runs one request's handler on the connection thread that waits for it: the thread would block anyway, and
/// running the handler's jobs here saves two thread hops per request (to Swift's cooperative pool and back),
/// which otherwise cost half the server's throughput. Work the handler awaits elsewhere (an actor, the store's
/// writer thread) resumes here too.
final class ConnectionExecutor: TaskExecutor, @unchecked Sendable {
    // `jobs` and `response` are guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var response: ServerResponse?

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func finish(with response: ServerResponse) {
        condition.lock()
        self.response = response
        condition.signal()
        condition.unlock()
    }

    /// Starts `handler` with this executor preferred and runs its jobs on the calling thread until it answers.
    func run(_ handler: @escaping @Sendable () async -> ServerResponse) -> ServerResponse {
        Task(executorPreference: self) {
            self.finish(with: await handler())
        }
        while true {
            condition.lock()
            while jobs.isEmpty && response == nil { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            let finished = response
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            // The task's last job stores the response; its own completion needs no further job.
            if batch.isEmpty, let finished { return finished }
        }
    }
}
