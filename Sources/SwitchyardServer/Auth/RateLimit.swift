/// How often something may happen: `burst` times at once, then once per `interval` (a token bucket).
package struct RateLimit: Sendable, Equatable {
    package var burst: Int
    package var interval: Duration

    package init(burst: Int, interval: Duration) {
        self.burst = max(1, burst)
        self.interval = interval > .zero ? interval : .nanoseconds(1)
    }
}
