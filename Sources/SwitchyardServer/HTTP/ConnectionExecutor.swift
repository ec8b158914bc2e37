import Foundation

/// Runs one request's handler on the connection thread that waits for it: the thread would block anyway, and
/// running the handler's jobs here saves two thread hops per request (to Swift's cooperative pool and back),
/// which otherwise cost half the server's throughput. Work the handler awaits elsewhere (an actor, the store's
/// writer thread) resumes here too, and so does a function the handler calls (`FunctionDeadline` runs it with
/// the caller's executor preferred).
///
/// Once the handler has answered, the thread goes back to libmicrohttpd: jobs still arriving (a function that
/// outlived its time limit) are handed to a dispatch thread instead, so that they run to their end.
final class ConnectionExecutor: TaskExecutor, @unchecked Sendable {
    // `jobs`, `response` and `answered` are guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var response: ServerResponse?
    private var answered = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        guard !answered else {
            condition.unlock()
            runElsewhere(job)
            return
        }
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

    private func runElsewhere(_ job: UnownedJob) {
        DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
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
            // The task's last job stores the response; its own completion needs no further job.
            if batch.isEmpty, let finished {
                answered = true
                condition.unlock()
                return finished
            }
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
