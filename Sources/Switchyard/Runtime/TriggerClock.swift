import Foundation

/// Where the trigger runtime reads the time and waits for scheduled fire times. Tests pass a clock they
/// move by hand, so a schedule's catch-up runs without waiting for real minutes.
public protocol TriggerClock: Sendable {
    func now() -> Date
    /// Returns at or after `deadline`; throws `CancellationError` when the waiting task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// The system's wall clock.
public struct WallClock: TriggerClock {
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(until deadline: Date) async throws {
        // Sleep in bounded steps so a wall-clock jump (NTP, suspend) is noticed within a minute.
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return }
            try await Task.sleep(for: .seconds(min(remaining, 60)))
        }
    }
}
