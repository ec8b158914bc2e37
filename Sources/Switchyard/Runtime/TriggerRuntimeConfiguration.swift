/// How a `TriggerRuntime` keeps time, retries the triggers whose configuration has no retry policy, and waits out
/// storage failures.
public struct TriggerRuntimeConfiguration: Sendable {
    public var clock: any TriggerClock
    /// Retries for scheduled and authentication triggers (database triggers carry their own `retry`).
    public var retry: RetryPolicy
    /// The backoff between tries to write a trigger's state again after the store's storage failed (a full
    /// disk), and before a trigger suspended by such a failure goes on. Storage is tried until it works: the
    /// policy's `maxAttempts` is not used, its `maxBackoff` bounds each wait.
    public var storageRetry: RetryPolicy
    /// The database that keeps trigger state and dead letters; it must be one the store does not
    /// change-log (`local`), so bookkeeping never fires a trigger.
    public var stateDatabase: String

    public init(
        clock: any TriggerClock = WallClock(), retry: RetryPolicy = RetryPolicy(),
        storageRetry: RetryPolicy = RetryPolicy(initialBackoff: .seconds(1), maxBackoff: .seconds(30)),
        stateDatabase: String = "local"
    ) {
        self.clock = clock
        self.retry = retry
        self.storageRetry = storageRetry
        self.stateDatabase = stateDatabase
    }
}
