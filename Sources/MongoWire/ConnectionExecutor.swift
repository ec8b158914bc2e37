import Dispatch
import Synchronization

/// Runs a connection's commands on the connection's own thread, which waits for each reply anyway: the command's
/// task prefers this executor, so its code (and its child tasks') runs here instead of on the concurrency pool, and
/// a command that never suspends costs no thread switch at all. Handing each command to the pool and waiting for it
/// cost two thread wake-ups a command, more than a read by `_id` itself. Unstructured tasks a command starts (a
/// change stream's reader) do not inherit the preference and run on the pool as before.
final class ConnectionExecutor: TaskExecutor {
    /// Jobs enqueued while a command waits to go on (after the store resumed it, or an actor handed it back).
    private let jobs = Mutex<[UnownedJob]>([])
    /// Counts what the running thread has yet to take: each job, and the command's end.
    private let ready = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        ready.signal()
    }

    /// Runs `operation` to its end on the calling thread; only one call at a time, from the connection's thread.
    func run<T: Sendable>(_ operation: sending @escaping () async -> T) -> T {
        let result = Outcome<T>()
        Task(executorPreference: self) { [ready] in
            let value = await operation()
            result.value.withLock { $0 = value }
            ready.signal()
        }
        while true {
            ready.wait()
            // A signal with no job queued is the command's end: every job of its task came before it.
            guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { break }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        return result.value.withLock { $0.take()! }
    }

    /// Where the command's task leaves its result for the waiting thread.
    private final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<T?>(nil)
    }
}
