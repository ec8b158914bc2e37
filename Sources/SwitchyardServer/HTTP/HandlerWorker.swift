import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A task that runs request handlers one after another on the server thread that started it: a served call then
/// costs no task of its own. Creating and destroying a task per request, with the slabs its frames take from the
/// heap (four of a kilobyte or more for a function call), cost a call more than routing and parsing it; a worker
/// keeps its slabs.
///
/// A worker's jobs go to the request it is handling (`RequestExecution`), which runs them on the server thread
/// or, once the request is answered or its connection gone, hands them to the global pool. When a handler ends on
/// the worker's own thread, the worker waits there for the thread's next request (`idle`); one that ends anywhere
/// else ends instead, and the thread starts a new worker when it needs one. A thread's idle workers end with the thread.
final class HandlerWorker: TaskExecutor, @unchecked Sendable {
    // Unchecked: `current` is behind its lock (jobs arrive from any thread); `waiting` is touched only
    // on the worker's thread, in the server callbacks that assign requests and in the worker's own jobs there.
    private let current = Mutex<RequestExecution?>(nil)
    private var waiting: UnsafeContinuation<RequestExecution?, Never>?
    private let thread = pthread_self()

    /// Handles `execution` with the thread's idle worker, or a new one; the handler runs until it answers or waits.
    static func handle(_ execution: RequestExecution) {
        if let worker = Idle.ofThisThread.take() {
            worker.current.withLock { $0 = execution }
            execution.worker = worker
            let waiting = worker.waiting
            worker.waiting = nil
            waiting?.resume(returning: execution)
        } else {
            let worker = HandlerWorker()
            worker.current.withLock { $0 = execution }
            execution.worker = worker
            Task.immediate(executorPreference: worker) { await worker.serve(first: execution) }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        if let execution = current.withLock({ $0 }) {
            execution.enqueue(job)
        } else {
            globalConcurrentExecutor.enqueue(job)
        }
    }

    private func serve(first: RequestExecution) async {
        var next: RequestExecution? = first
        while let execution = next {
            await execution.perform()
            current.withLock { $0 = nil }
            guard pthread_equal(pthread_self(), thread) != 0 else { return }
            next = await withUnsafeContinuation { continuation in
                waiting = continuation
                Idle.ofThisThread.add(self)
            }
        }
    }

    /// Ends a worker waiting for a request (its thread is ending).
    fileprivate func end() {
        let waiting = waiting
        self.waiting = nil
        waiting?.resume(returning: nil)
    }

    /// A server thread's idle workers, kept where only that thread reaches them (thread-specific data), and ended
    /// with it.
    private final class Idle {
        private var workers: [HandlerWorker] = []

        func take() -> HandlerWorker? { workers.popLast() }

        func add(_ worker: HandlerWorker) { workers.append(worker) }

        static var ofThisThread: Idle {
            if let existing = pthread_getspecific(key) {
                return Unmanaged<Idle>.fromOpaque(existing).takeUnretainedValue()
            }
            let idle = Idle()
            pthread_setspecific(key, Unmanaged.passRetained(idle).toOpaque())
            return idle
        }

        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            pthread_key_create(&key) { pointer in
                guard let pointer else { return }
                for worker in Unmanaged<Idle>.fromOpaque(pointer).takeRetainedValue().workers { worker.end() }
            }
            return key
        }()
    }
}
