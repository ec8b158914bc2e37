import Foundation

/// A function running under a `DeadlineKeeper`: what the keeper asks of it when the time limit passes first.
public final class ExpiringCall: Sendable {
    private let runtime: FunctionRuntime
    private let run: FunctionRuntime.Run

    init(runtime: FunctionRuntime, run: FunctionRuntime.Run) {
        self.runtime = runtime
        self.run = run
    }

    /// Records the run as timed out, with the lines it logged so far, and gives the error its caller gets. The
    /// function may go on after this; its result and later lines are dropped.
    public func expire() async -> FunctionCallError {
        let duration = run.started.duration(to: .now)
        await runtime.invocationLog.record(run.record(.timeout, duration: duration))
        return .timedOut(run.origin.function, after: run.limit)
    }
}
