import CMicroHTTPD
import Switchyard
import Synchronization

/// Runs one request's asynchronous handler on the libmicrohttpd thread that received the request, in the thread's
/// `HandlerWorker` task: a handler that awaits only actors and functions (which prefer the worker's executor too,
/// see `FunctionDeadline`) answers without leaving the thread, saving two thread hops per request. When the handler waits on something
/// elsewhere (the store's writer, a timer, another server), its connection is suspended and the thread goes
/// back to serving its other connections; the handler's next job resumes the connection, and the thread runs
/// it when it next gets to the connection. Handlers thus never need Swift's global pool, which a caller of
/// `HTTPServer.stop()` may be blocking.
///
/// A handler can hold its work to a deadline (`hold`): a served function call runs in the request's own task, and
/// if its time limit passes first, the request is answered without it (see `DeadlineKeeper`). The deadline is
/// watched only once the handler waits: a handler running on the thread could not be answered for anyway.
///
/// Jobs arriving after the answer (a function that outlived its time limit), or after the connection closed,
/// run on the global pool.
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
        /// The deadline the handler's work is held to, while it is.
        var hold: Hold?
        /// Set when a hold's deadline passed: the overdue answer is the request's, not the handler's.
        var expired = false
        /// The handler's (worker's) task, cancelled when a hold expires; dropped when the handler ends.
        var task: Task<Void, Never>?
    }

    private struct Hold {
        var deadline: ContinuousClock.Instant
        var overdue: any OverdueAnswer
        /// In `DeadlineWatch`, once the handler waits.
        var entry: DeadlineWatch.Entry?
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
        return run(task: worker?.task)
    }

    /// The handler, run by the worker.
    nonisolated(nonsending) func perform() async {
        // The handler's request can reach this execution (to keep a function's time limit); the kept one cannot,
        // or the two would keep each other.
        var request = request
        request.execution = self
        finish(with: await Router.run(handler, request, parameters))
    }

    /// Until `release()`, holds the handler's work to `deadline`: should it pass before the handler answers, the
    /// handler's task is cancelled and the request answered with `overdue`'s error instead.
    func hold(until deadline: ContinuousClock.Instant, overdue: any OverdueAnswer) {
        state.withLock { $0.hold = Hold(deadline: deadline, overdue: overdue) }
    }

    /// Ends the hold; false when its deadline had passed (the request is answered for).
    func release() -> Bool {
        let (expired, entry) = state.withLock { state in
            defer { state.hold = nil }
            return (state.expired, state.hold?.entry)
        }
        if let entry { DeadlineWatch.shared.remove(entry) }
        return !expired
    }

    /// On the receiving thread (at the start, and whenever the resumed connection comes round): runs the
    /// handler's jobs until it answers or has to wait on something elsewhere.
    func run() -> Outcome {
        run(task: nil)
    }

    private func run(task: Task<Void, Never>?) -> Outcome {
        var batch: [UnownedJob] = []
        var task = task
        while true {
            let outcome = state.withLock { state -> Outcome? in
                // Kept only while the handler runs: the task keeps its closure, which keeps this.
                if let started = task.take(), state.response == nil, !state.expired { state.task = started }
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
                if let hold = state.hold, hold.entry == nil {
                    state.hold?.entry = DeadlineWatch.shared.add(after: ContinuousClock.now.duration(to: hold.deadline))
                    {
                        self.expire()
                    }
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

    /// The hold's deadline passed: the handler is cancelled, and the request answered once the overdue answer is
    /// ready (a function's is ready once its run is recorded).
    private func expire() {
        let expired = state.withLock { state -> (any OverdueAnswer, Task<Void, Never>?)? in
            guard let hold = state.hold, !state.expired else { return nil }
            state.expired = true
            return (hold.overdue, state.task)
        }
        guard let (overdue, task) = expired else { return }
        task?.cancel()
        let link = Router.logsLink(request.headers)
        Task { finish(with: await overdue.error().response(defaultLink: link), overdue: true) }
    }

    /// Answers with the handler's response, or (`overdue`) with the one replacing it: once a hold expired, only
    /// that one.
    private func finish(with response: ServerResponse, overdue: Bool = false) {
        let wake = state.withLock { state in
            if !overdue { state.task = nil }
            guard overdue == state.expired else { return false }
            state.response = response
            guard state.phase == .suspended else { return false }
            state.phase = .waking
            return true
        }
        if wake { MHD_resume_connection(connection) }
    }
}
