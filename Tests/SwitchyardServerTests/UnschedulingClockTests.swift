import Foundation
import Testing

/// The admin tests' clock holds scheduled triggers back without making `awaitIdle` wait for a fire that never comes.
@Suite struct UnschedulingClockTests {
    @Test func aFireTimeThatPassesIsNeverReached() async throws {
        let clock = UnschedulingClock()
        let fireTime = Date().addingTimeInterval(0.05)
        let sleeper = Task { try await clock.sleep(until: fireTime) }
        // Until the wall clock is well past the fire time (and the sleeper has surely begun).
        let deadline = Date().addingTimeInterval(10)
        while Date() < fireTime.addingTimeInterval(0.05) || clock.now() >= fireTime, Date() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(Date() > fireTime)
        #expect(clock.now() < fireTime)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
