/// How often something may happen: `burst` times at once, then once per `interval` (a token bucket).
public struct RateLimit: Sendable, Equatable {
    public var burst: Int
    public var interval: Duration

    public init(burst: Int, interval: Duration) {
        self.burst = max(1, burst)
        self.interval = interval > .zero ? interval : .nanoseconds(1)
    }
}
