import Foundation
import Synchronization
import Testing

@testable import Switchyard

@Suite struct DeadlineWatchTests {
    @Test func runsWhatIsDueAndNothingRemoved() async throws {
        let ran = Mutex<[Int]>([])
        let watch = DeadlineWatch()
        let removed = watch.add(after: .milliseconds(20)) { ran.withLock { $0.append(1) } }
        _ = watch.add(after: .milliseconds(60)) { ran.withLock { $0.append(3) } }
        // Earlier than everything pending: the sleeping watch wakes for it.
        _ = watch.add(after: .milliseconds(5)) { ran.withLock { $0.append(2) } }
        watch.remove(removed)
        let deadline = ContinuousClock.now + .seconds(10)
        while ran.withLock({ $0.count < 2 }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(ran.withLock { $0 } == [2, 3])
    }

    /// A watch thread that falls behind finds several entries due at once: they run in deadline order.
    @Test func entriesFoundDueTogetherRunInDeadlineOrder() async throws {
        let ran = Mutex<[Int]>([])
        let watch = DeadlineWatch()
        let busy = DispatchSemaphore(value: 0)
        let held = Atomic(false)
        _ = watch.add(after: .zero) {
            held.store(true, ordering: .releasing)
            busy.wait()
        }
        while !held.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
        // Added latest deadline first, all falling due while the thread is held up.
        for n in (0..<10).reversed() {
            _ = watch.add(after: .milliseconds(1 + n)) { ran.withLock { $0.append(n) } }
        }
        try await Task.sleep(for: .milliseconds(40))
        busy.signal()
        let deadline = ContinuousClock.now + .seconds(10)
        while ran.withLock({ $0.count < 10 }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(ran.withLock { $0 } == Array(0..<10))
    }
}
