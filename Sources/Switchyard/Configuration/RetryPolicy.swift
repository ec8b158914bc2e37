/// How often a failed trigger function is retried, with exponential backoff between attempts.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in total, including the first; at least 1.
    public var maxAttempts: Int
    /// Wait before the second attempt; doubles after each failure up to `maxBackoff`.
    public var initialBackoff: Duration
    public var maxBackoff: Duration

    public init(maxAttempts: Int = 5, initialBackoff: Duration = .seconds(1), maxBackoff: Duration = .seconds(60)) {
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
    }
}
