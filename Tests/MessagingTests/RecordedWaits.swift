import Messaging
import Synchronization

/// Records the waits a `RetryPolicy` asks for instead of sleeping.
final class RecordedWaits: Sendable {
    private let waits = Mutex<[Duration]>([])

    var all: [Duration] { waits.withLock { $0 } }

    func policy(attempts: Int = 5, totalTime: Duration = .seconds(60)) -> RetryPolicy {
        RetryPolicy(
            maximumAttempts: attempts, initialBackoff: .milliseconds(100), maximumBackoff: .seconds(2),
            maximumTotalTime: totalTime, sleep: { [self] delay in waits.withLock { $0.append(delay) } })
    }
}
