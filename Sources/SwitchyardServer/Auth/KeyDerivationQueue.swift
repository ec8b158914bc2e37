import Dispatch
import Foundation
import Synchronization

/// Runs password derivations (deliberately slow) a few at a time on threads of their own, so that however many
/// logins arrive they leave the other cores to everything else; a derivation that finds the queue full is refused
/// rather than waiting behind it.
package final class KeyDerivationQueue: Sendable {
    /// The queue was full.
    struct Full: Error, Sendable {}

    private struct State {
        var running = 0
        var waiting: [@Sendable () -> Void] = []
    }

    /// Derivations at once.
    package let concurrency: Int
    /// Derivations waiting for a turn, beyond which new ones are refused.
    package let waitingLimit: Int
    private let state = Mutex(State())
    private let threads = DispatchQueue(label: "switchyard.key-derivation", qos: .utility, attributes: .concurrent)

    /// By default half the cores (at least one) run derivations and 64 may wait.
    package init(
        concurrency: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), waitingLimit: Int = 64
    ) {
        self.concurrency = max(1, concurrency)
        self.waitingLimit = max(0, waitingLimit)
    }

    /// Runs `work` when a turn comes.
    /// - Throws: `Full` when `waitingLimit` derivations wait already.
    func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let job: @Sendable () -> Void = { continuation.resume(with: Result { try work() }) }
            let admitted: Bool? = state.withLock { state in
                if state.running < concurrency {
                    state.running += 1
                    return true
                }
                guard state.waiting.count < waitingLimit else { return nil }
                state.waiting.append(job)
                return false
            }
            switch admitted {
            case true?: start(job)
            case false?: break
            case nil: continuation.resume(throwing: Full())
            }
        }
    }

    private func start(_ job: @escaping @Sendable () -> Void) {
        threads.async {
            job()
            self.finished()
        }
    }

    /// Hands the turn to the first waiting derivation, if any.
    private func finished() {
        let next: (@Sendable () -> Void)? = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        if let next { start(next) }
    }
}
