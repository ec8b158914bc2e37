extension RetryPolicy {
    /// The wait after failed attempt `attempt` (1-based): exponential backoff with full jitter, a random
    /// duration between zero and `min(maxBackoff, initialBackoff × 2^(attempt-1))`, so retries of many
    /// events failing together spread out instead of arriving in waves.
    func backoff(afterAttempt attempt: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let initial = max(0, Self.seconds(initialBackoff))
        let ceiling = max(0, Self.seconds(maxBackoff))
        let doubling = Double(sign: .plus, exponent: min(max(attempt - 1, 0), 62), significand: 1)
        let cap = min(ceiling, initial * doubling)
        let nanoseconds = min(cap * min(max(random, 0), 1) * 1e9, Double(Int64.max / 2))
        return .nanoseconds(Int64(nanoseconds.rounded(.down)))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
