import Synchronization

/// Token buckets by key (an address, an account), in a table of bounded size: when it is full, buckets that have
/// filled up again (which remember nothing) go first, then the ones least recently used.
final class RateLimiter: Sendable {
    /// A refusal: how long until the key may try again.
    struct Refusal: Error, Sendable {
        var retryAfter: Duration
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let limit: RateLimit
    let capacity: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(limit: RateLimit, capacity: Int) {
        self.limit = limit
        self.capacity = max(1, capacity)
    }

    /// Takes one of `key`'s tokens.
    func take(_ key: String) throws(Refusal) {
        let now = ContinuousClock.now
        let limit = self.limit
        let capacity = self.capacity
        let wait: Duration? = buckets.withLock { buckets in
            if buckets[key] == nil, buckets.count >= capacity {
                Self.makeRoom(in: &buckets, capacity: capacity, now: now, limit: limit)
            }
            var bucket = Self.refilled(buckets[key], now: now, limit: limit)
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return limit.interval * (1 - bucket.tokens) }
            bucket.tokens -= 1
            return nil
        }
        if let wait { throw Refusal(retryAfter: wait) }
    }

    /// Gives back a token taken for an attempt that turned out not to count (a login that succeeded).
    func giveBack(_ key: String) {
        let now = ContinuousClock.now
        let limit = self.limit
        buckets.withLock { buckets in
            guard buckets[key] != nil else { return }
            var bucket = Self.refilled(buckets[key], now: now, limit: limit)
            bucket.tokens = min(Double(limit.burst), bucket.tokens + 1)
            buckets[key] = bucket
        }
    }

    /// Keys tracked (for tests of the bound).
    var count: Int { buckets.withLock { $0.count } }

    private static func refilled(_ bucket: Bucket?, now: ContinuousClock.Instant, limit: RateLimit) -> Bucket {
        guard var bucket else { return Bucket(tokens: Double(limit.burst), updated: now) }
        let gained = (now - bucket.updated) / limit.interval
        bucket.tokens = min(Double(limit.burst), bucket.tokens + gained)
        bucket.updated = now
        return bucket
    }

    /// Drops the buckets that filled up again, and when none has, the least recently used one.
    private static func makeRoom(
        in buckets: inout [String: Bucket], capacity: Int, now: ContinuousClock.Instant, limit: RateLimit
    ) {
        buckets = buckets.filter { _, bucket in
            bucket.tokens + (now - bucket.updated) / limit.interval < Double(limit.burst)
        }
        if buckets.count >= capacity, let oldest = buckets.min(by: { $0.value.updated < $1.value.updated }) {
            buckets.removeValue(forKey: oldest.key)
        }
    }
}
