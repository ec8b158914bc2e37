import Synchronization

/// Runs a function with a time limit. The function runs in a task of its own, so the caller gets its answer
/// when the limit passes even if the function ignores cancellation; the function's task is cancelled then
/// (and when the caller is cancelled) and stops at its next cancellation check.
enum FunctionDeadline {
    enum Outcome<Value: Sendable>: Sendable {
        case finished(Result<Value, any Error>)
        case timedOut
    }

    static func run<Value: Sendable>(
        limit: Duration, _ operation: @escaping @Sendable () async throws -> Value
    ) async -> Outcome<Value> {
        let work = Task { try await operation() }
        // Whichever of the function and the timer comes first takes the continuation and answers.
        let waiting = Mutex<CheckedContinuation<Outcome<Value>, Never>?>(nil)
        let take: @Sendable () -> CheckedContinuation<Outcome<Value>, Never>? = {
            waiting.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting.withLock { $0 = continuation }
                let timer = Task {
                    try? await Task.sleep(for: limit)
                    guard !Task.isCancelled, let continuation = take() else { return }
                    work.cancel()
                    continuation.resume(returning: .timedOut)
                }
                Task {
                    let result = await work.result
                    timer.cancel()
                    take()?.resume(returning: .finished(result))
                }
            }
        } onCancel: {
            work.cancel()
        }
    }
}
