import CMicroHTTPD
import Switchyard
import Synchronization

/// Runs one request's handler on the libmicrohttpd thread that received the request, in the thread's
/// `HandlerWorker` task: a handler that awaits only actors and functions (which start on the handler's thread, see
/// `FunctionDeadline`) answers without leaving the thread. When the handler waits on something elsewhere (the
/// store's writer, a timer, another server), its connection is suspended and the thread goes back to serving its
/// other connections; the handler's next job resumes the connection, and the thread runs it when it next gets to
/// the connection. Handlers thus never wait for Swift's cooperative pool, two threads on a 2-core machine that
/// other work can keep busy: a handler resumed while the server stops still answers within the grace period
/// (`HTTPServerTests.serversStoppedWhileHandlersNeedThePoolAllStop`, `stoppingLetsAWaitingHandlerAnswer`).
///
/// Jobs arriving after the answer, or after the connection closed, run on the global pool.
final class RequestExecution: @unchecked Sendable {
    // @unchecked: all mutable state is in `state` but `worker`, set on the receiving thread before the handler
    // starts; `connection` is only handed to libmicrohttpd's thread-safe resume call, and only while the
    // connection is suspended (so still open).
    private enum Phase {
        /// The receiving thread runs the jobs.
        case inline
        /// The connection waits for a job or the answer.
        case suspended
        /// Resumed: the thread will run the queued jobs (or collect the answer) when it gets to the connection.
        case waking
        /// The response went out, or the connection closed: jobs run elsewhere.
        case done
    }

    private struct State {
        var phase = Phase.inline
        var jobs: [UnownedJob] = []
        var response: ServerResponse?
        /// Set once the connection was suspended: the server keeps track of such requests until they end.
        var noted = false
    }

    /// What `run` found.
    enum Outcome {
        case answered(ServerResponse)
        /// The connection is suspended until the handler has a job or an answer.
        case suspended
        /// The server is stopping: the connection should close unanswered.
        case refused
    }

    private let state = Mutex(State())
    private let connection: OpaquePointer
    private let shared: ServerShared
    /// What `start` runs. Kept here rather than captured by the task's closure, which then captures only this
    /// object and needs no context of its own.
    private let request: ServerRequest
    private let handler: Router.Handler
    private let parameters: RouteParameters
    /// The worker running the handler, whose executor its jobs run on.
    var worker: HandlerWorker?

    init(
        connection: OpaquePointer, shared: ServerShared, request: ServerRequest, handler: @escaping Router.Handler,
        parameters: RouteParameters
    ) {
        self.connection = connection
        self.shared = shared
        self.request = request
        self.handler = handler
        self.parameters = parameters
    }

    /// A job of the handler's worker, while it handles this request.
    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let (queued, wake) = state.withLock { state -> (Bool, Bool) in
            switch state.phase {
            case .inline, .waking:
                state.jobs.append(unowned)
                return (true, false)
            case .suspended:
                state.jobs.append(unowned)
                state.phase = .waking
                return (true, true)
            case .done:
                return (false, false)
            }
        }
        if !queued { globalConcurrentExecutor.enqueue(ExecutorJob(unowned)) }
        if wake { MHD_resume_connection(connection) }
    }

    /// On the receiving thread: runs the handler at once, in the thread's worker, until it answers or waits; then
    /// runs its jobs (see `run`). A handler that never waits elsewhere has answered before `run` looks.
    func start() -> Outcome {
        HandlerWorker.handle(self)
        return run()
    }

    /// The handler, run by the worker.
    nonisolated(nonsending) func perform() async {
        finish(with: await Router.run(handler, request, parameters))
    }

    /// On the receiving thread (at the start, and whenever the resumed connection comes round): runs the
    /// handler's jobs until it answers or has to wait on something elsewhere.
    func run() -> Outcome {
        var batch: [UnownedJob] = []
        while true {
            let outcome = state.withLock { state -> Outcome? in
                if state.phase == .done { return .refused }
                state.phase = .inline
                if let response = state.response {
                    state.phase = .done
                    swap(&batch, &state.jobs)
                    return .answered(response)
                }
                if !state.jobs.isEmpty {
                    swap(&batch, &state.jobs)
                    return nil
                }
                if !state.noted {
                    guard shared.noteSuspended(self) else {
                        state.phase = .done
                        return .refused
                    }
                    state.noted = true
                }
                // Suspended under the lock, so that nothing can resume the connection before this.
                state.phase = .suspended
                MHD_suspend_connection(connection)
                return .suspended
            }
            if let outcome {
                // Left over after the answer (a function past its time limit): not this thread's business any more.
                for job in batch { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
                return outcome
            }
            // The worker is set before the handler starts, so before any job arrives.
            let executor = worker!.asUnownedTaskExecutor()
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Ends a suspension without an answer (the server is stopping); the resumed connection closes.
    func abandon() {
        let wasSuspended = state.withLock { state in
            guard state.phase == .suspended else { return false }
            state.phase = .done
            return true
        }
        if wasSuspended { MHD_resume_connection(connection) }
    }

    /// The request ended (answered, or its connection closed): jobs still queued run elsewhere.
    func end() {
        let (jobs, noted) = state.withLock { state in
            state.phase = .done
            defer { state.jobs = [] }
            return (state.jobs, state.noted)
        }
        for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        if noted { shared.noteEnded(self) }
    }

    /// Answers with the handler's response.
    private func finish(with response: ServerResponse) {
        let wake = state.withLock { state in
            state.response = response
            guard state.phase == .suspended else { return false }
            state.phase = .waking
            return true
        }
        if wake { MHD_resume_connection(connection) }
    }
}
