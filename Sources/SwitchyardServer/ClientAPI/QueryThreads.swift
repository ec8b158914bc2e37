import Foundation

/// Threads of their own for the store reads clients ask for through `mongodb-atlas`. A handler otherwise runs on
/// the libmicrohttpd thread that read its request until it waits, and a read runs on its caller's thread: a slow
/// query (a large scan, an expensive `$regex`) would hold that thread and every connection it serves. Run here,
/// the read leaves the server's threads free; the handler's connection waits suspended until the read is done.
///
/// Not Swift's cooperative pool either: a read computes without waiting for as long as it takes (up to its time
/// budget), and two of them would take the whole pool of a two-core machine.
package final class QueryThreads: TaskExecutor, @unchecked Sendable {
    // Unchecked: `jobs` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// Shared by every server of the process. Threads are never stopped: they live as long as the process.
    package static let shared = QueryThreads(count: max(2, ProcessInfo.processInfo.activeProcessorCount))

    package init(count: Int) {
        for index in 0..<max(1, count) {
            let thread = Thread { self.run() }
            thread.name = "switchyard-query-\(index)"
            thread.start()
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
