import Foundation
import Switchyard
import Synchronization

/// The clock a `TestApp`'s triggers run on: it stands still until a test moves it, so schedules and retries
/// happen when the test says and never by waiting for real time.
///
/// ```swift
/// try await app.clock.advance(by: .minutes(5))  // every fire time and retry due in those 5 minutes ran
/// ```
public final class TestClock: TriggerClock {
    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [UUID: Sleeper] = [:]
        /// Sleepers between their start and their registration, and those of them cancelled meanwhile.
        var registering: Set<UUID> = []
        var cancelled: Set<UUID> = []
    }

    private let state: Mutex<State>
    /// The app's settling: waits until its triggers have done everything due by `now()`, and says how many waits on
    /// this clock they are in. Set by the `TestApp` that runs on this clock.
    private let settle = Mutex<(@Sendable () async throws -> Int)?>(nil)

    /// A clock standing at `now` (the wall time when made, by default).
    public init(now: Date = Date()) {
        state = Mutex(State(now: now))
    }

    public func now() -> Date { state.withLock { $0.now } }

    /// Moves the clock `duration` ahead: every scheduled fire time and every retry due by then runs, in time order,
    /// each one finishing (and whatever it started with it: the events its writes cause, their functions) before
    /// the clock passes the next, as if that much time had passed. Returns once everything due has finished.
    public func advance(by duration: Duration) async throws {
        let (seconds, attoseconds) = duration.components
        try await advance(to: now().addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18))
    }

    /// Moves the clock to `time` (never back), as `advance(by:)` does.
    public func advance(to time: Date) async throws {
        while true {
            try await settled()
            let due = state.withLock { state -> [CheckedContinuation<Void, any Error>]? in
                guard let next = state.sleepers.values.map(\.deadline).min(), next <= time else {
                    state.now = max(state.now, time)
                    return nil
                }
                state.now = max(state.now, next)
                let ready = state.sleepers.filter { $0.value.deadline <= next }
                for id in ready.keys { state.sleepers[id] = nil }
                return ready.values.map(\.continuation)
            }
            guard let due else { break }
            for continuation in due { continuation.resume() }
        }
        try await settled()
    }

    /// Lets `app`'s settling decide when a step of `advance` is over.
    func drive(_ settle: @escaping @Sendable () async throws -> Int) {
        self.settle.withLock { $0 = settle }
    }

    /// Waits until the app is idle and each of its waits on the clock is registered here, so the next deadline
    /// is known before the clock moves.
    private func settled() async throws {
        guard let settle = settle.withLock({ $0 }) else { return }
        while try await settle() > state.withLock({ $0.sleepers.count }) { await Task.yield() }
    }

    public func sleep(until deadline: Date) async throws {
        let id = UUID()
        state.withLock { _ = $0.registering.insert(id) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Bool? in
                    state.registering.remove(id)
                    if state.cancelled.remove(id) != nil { return false }
                    if state.now >= deadline { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                if state.registering.contains(id) { state.cancelled.insert(id) }
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
