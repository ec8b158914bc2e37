/// How a `TriggerRuntime` keeps time and retries the triggers whose configuration has no retry policy.
public struct TriggerRuntimeConfiguration: Sendable {
    public var clock: any TriggerClock
    /// Retries for scheduled and authentication triggers (database triggers carry their own `retry`).
    public var retry: RetryPolicy
    /// The database that keeps trigger state and dead letters; it must be one the store does not
    /// change-log (`local`), so bookkeeping never fires a trigger.
    public var stateDatabase: String

    public init(
        clock: any TriggerClock = WallClock(), retry: RetryPolicy = RetryPolicy(), stateDatabase: String = "local"
    ) {
        self.clock = clock
        self.retry = retry
        self.stateDatabase = stateDatabase
    }
}
