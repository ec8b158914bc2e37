import Dispatch
import Synchronization
import Testing

@testable import Switchyard

/// Readers on many threads at once, each under its own thread's lock, never see a write half done.
@Suite struct ReadMostlyTests {
    @Test func readersOnManyThreadsSeeOnlyWholeWrites() {
        // Both halves always hold the same number: a read between a write's two stores would see them differ.
        let pair = ReadMostly((0, 0))
        let torn = Atomic(0)
        let reads = Atomic(0)
        let writing = Atomic(true)
        DispatchQueue.concurrentPerform(iterations: 9) { thread in
            if thread == 0 {
                for value in 1...2_000 {
                    pair.write { pair in
                        pair.0 = value
                        // Long enough between the halves for readers on other threads to look.
                        for _ in 0..<200 where reads.load(ordering: .relaxed) < 0 {}
                        pair.1 = value
                    }
                }
                writing.store(false, ordering: .relaxed)
            } else {
                while writing.load(ordering: .relaxed) {
                    if pair.read({ $0.0 != $0.1 }) { torn.add(1, ordering: .relaxed) }
                    reads.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(torn.load(ordering: .relaxed) == 0)
        #expect(reads.load(ordering: .relaxed) > 0)
        #expect(pair.read { $0.0 } == 2_000)
    }
}
