import Foundation

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
    /// Where the runtime tells what an operator should hear of as it happens (a trigger that skipped events
    /// because its resume point had left the change log): standard error by default.
    public var log: (@Sendable (String) -> Void)?
    /// This process's name among the nodes sharing a store's database (`serve --node-name`): shown as the holder
    /// of the triggers it runs. Recorded only on a shared database.
    public var node: String?

    public init(
        clock: any TriggerClock = WallClock(), retry: RetryPolicy = RetryPolicy(),
        storageRetry: RetryPolicy = RetryPolicy(initialBackoff: .seconds(1), maxBackoff: .seconds(30)),
        stateDatabase: String = "local", log: (@Sendable (String) -> Void)? = Self.standardError,
        node: String? = nil
    ) {
        self.clock = clock
        self.retry = retry
        self.storageRetry = storageRetry
        self.stateDatabase = stateDatabase
        self.log = log
        self.node = node
    }

    /// Writes a line to standard error, as `serve` prints its own notes.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data("switchyard: \(line)\n".utf8))
    }
}
