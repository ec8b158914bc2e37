import Synchronization

/// The time limit of every function run: served calls, triggers, `switchyard call` and tests alike. The function
/// runs in a task of its own, so its caller gets its answer when the limit passes even if the function ignores
/// cancellation; the function's task is cancelled then (and when the caller is cancelled) and stops at its next
/// cancellation check, its later result dropped. The task starts on the caller's thread (`Task.immediate`): a
/// function that does not wait (most callable functions) has ended before its caller would wait, without a thread
/// hop, and a served request is answered on the thread that read it. A function that computes for long without
/// waiting holds its caller's thread meanwhile, and is answered for when it first waits. The limit counts from
/// the start and is kept by `DeadlineWatch` once the caller waits, rather than by a sleeping task, which would cost
/// a task and a thread hop per run.
enum FunctionDeadline {
    enum Outcome<Value: Sendable>: Sendable {
        case finished(Result<Value, any Error>)
        case timedOut
    }

    nonisolated(nonsending) static func run<Value: Sendable>(
        limit: Duration, _ operation: @escaping @Sendable () async throws -> Value
    ) async -> Outcome<Value> {
        let started = ContinuousClock.now
        let answer = Answer<Value>()
        let work = Task.immediate {
            let result: Result<Value, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            _ = answer.give(.finished(result))
        }
        // A function that did not wait has answered already: its caller neither waits nor passes its cancellation
        // on, which would cost it a cancellation record and four switches back to its executor.
        if let given = answer.given { return given }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                // Whichever of the function and the limit comes first answers; the function's task is cancelled
                // before its caller hears of the timeout.
                guard answer.wait(with: continuation) else { return }
                let remaining = limit - started.duration(to: .now)
                guard remaining > .zero else {
                    // Computed past its limit before it first waited: answered for now, not a watch's wake-up later.
                    _ = answer.give(.timedOut, first: { work.cancel() })
                    return
                }
                let deadline = DeadlineWatch.shared.add(after: remaining) {
                    _ = answer.give(.timedOut, first: { work.cancel() })
                }
                answer.setDeadline(deadline)
            }
        } onCancel: {
            work.cancel()
        }
    }
}

/// The one answer of a `FunctionDeadline.run`: the function's outcome or the timeout, whichever comes first,
/// even when the function finishes before the caller starts waiting. Its continuation is resumed exactly once,
/// by whoever gives the answer under the lock, so it need not be a checked one (which costs an allocation).
private final class Answer<Value: Sendable>: Sendable {
    private struct State {
        var given: FunctionDeadline.Outcome<Value>?
        var continuation: UnsafeContinuation<FunctionDeadline.Outcome<Value>, Never>?
        /// The limit's entry in `DeadlineWatch`, removed once answered.
        var deadline: DeadlineWatch.Entry?
    }

    private let state = Mutex(State())

    /// Answers with `outcome` unless there is an answer already, running `first` before the caller resumes; true
    /// when this was the answer.
    func give(_ outcome: FunctionDeadline.Outcome<Value>, first: () -> Void = {}) -> Bool {
        let answered = state.withLock {
            state -> (UnsafeContinuation<FunctionDeadline.Outcome<Value>, Never>?, DeadlineWatch.Entry?)? in
            guard state.given == nil else { return nil }
            state.given = outcome
            defer { (state.continuation, state.deadline) = (nil, nil) }
            return (state.continuation, state.deadline)
        }
        guard let (continuation, deadline) = answered else { return false }
        if let deadline { DeadlineWatch.shared.remove(deadline) }
        first()
        continuation?.resume(returning: outcome)
        return true
    }

    /// The answer, if given.
    var given: FunctionDeadline.Outcome<Value>? { state.withLock { $0.given } }

    /// Waits for the answer; false when it was given already (and the caller has it).
    func wait(with continuation: UnsafeContinuation<FunctionDeadline.Outcome<Value>, Never>) -> Bool {
        let given = state.withLock { state -> FunctionDeadline.Outcome<Value>? in
            if let given = state.given { return given }
            state.continuation = continuation
            return nil
        }
        guard let given else { return true }
        continuation.resume(returning: given)
        return false
    }

    /// Notes the limit's entry, or removes it at once when the answer came meanwhile.
    func setDeadline(_ deadline: DeadlineWatch.Entry) {
        let answered = state.withLock { state in
            if state.given == nil { state.deadline = deadline }
            return state.given != nil
        }
        if answered { DeadlineWatch.shared.remove(deadline) }
    }
}
