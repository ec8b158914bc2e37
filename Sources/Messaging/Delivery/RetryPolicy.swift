/// How a push client retries a send that failed for a passing reason (429, 500, 503, a transport error):
/// exponential backoff with full jitter, or the server's `Retry-After` when it gave one, within a bounded number
/// of attempts and a bounded total time. Errors that retrying cannot fix (400, 401, 403, 404) are never retried,
/// and a send that succeeded is never sent again.
package struct RetryPolicy: Sendable {
    /// Attempts in all, the first included (1: never retry).
    package var maximumAttempts: Int
    /// The backoff ceiling before the first retry; it doubles for each further retry.
    package var initialBackoff: Duration
    /// The ceiling's ceiling.
    package var maximumBackoff: Duration
    /// No retry starts once waiting for it would pass this much time since the first attempt began; a
    /// `Retry-After` longer than what is left ends the send with the error at once.
    package var maximumTotalTime: Duration
    /// How the client waits between attempts (`Task.sleep`); a test can record the waits instead.
    package var sleep: @Sendable (Duration) async throws -> Void

    package init(
        maximumAttempts: Int = 5, initialBackoff: Duration = .milliseconds(500),
        maximumBackoff: Duration = .seconds(30),
        maximumTotalTime: Duration = .seconds(60),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.maximumTotalTime = maximumTotalTime
        self.sleep = sleep
    }

    /// One attempt and no retries.
    package static var none: RetryPolicy { RetryPolicy(maximumAttempts: 1) }

    /// Full jitter: uniformly between zero and `min(maximumBackoff, initialBackoff · 2^(retry − 1))`, so clients
    /// that failed together do not come back together.
    package func backoff(beforeRetry retry: Int) -> Duration {
        let initial = Self.seconds(initialBackoff)
        let ceiling = min(Self.seconds(maximumBackoff), initial * Double(1 << min(max(retry - 1, 0), 30)))
        guard ceiling > 0 else { return .zero }
        return .seconds(Double.random(in: 0...ceiling))
    }

    /// What one attempt came to.
    enum Outcome<Value: Sendable>: Sendable {
        case success(Value)
        /// A passing failure; `retryAfter` is the server's wish, when it said one.
        case retry(PushError, retryAfter: Duration?)
        case failure(PushError)
    }

    /// Runs `attempt` (given its 1-based number) until it succeeds, fails for good, or the policy gives up.
    func run<Value: Sendable>(
        _ attempt: (Int) async -> Outcome<Value>
    ) async -> Result<Value, PushError> {
        let clock = ContinuousClock()
        let start = clock.now
        var number = 1
        while true {
            switch await attempt(number) {
            case .success(let value):
                return .success(value)
            case .failure(let error):
                return .failure(error)
            case .retry(var error, let retryAfter):
                let delay = retryAfter ?? backoff(beforeRetry: number)
                let waitedTooLong = start.duration(to: clock.now) + delay > maximumTotalTime
                guard number < maximumAttempts, !waitedTooLong, !Task.isCancelled else {
                    if number > 1 { error.message += " (gave up after \(number) attempts)" }
                    return .failure(error)
                }
                do {
                    try await sleep(delay)
                } catch {
                    return .failure(PushError(code: .transport, message: "cancelled while waiting to retry"))
                }
                number += 1
            }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
