import BSON
import DocumentStore
import Foundation
import Synchronization

/// One trigger's live state: its saved `TriggerState`, whether it runs, what is in flight, and where a
/// database trigger's stream has read to. Shared by the trigger's runner (and its delivery tasks), the
/// runtime's control calls and `awaitIdle`. Saves are coalesced: at most one write of the newest state is
/// in flight, so a later save can never be overtaken by an earlier one.
final class TriggerProgress: Sendable {
    enum RunState: Sendable, Equatable {
        /// Launched, not yet consuming (opening its stream, loading its start point).
        case starting
        case running
        case suspended
        case disabled
        case stopped
    }

    struct Snapshot: Sendable {
        var state: TriggerState
        var runState: RunState = .stopped
        /// Database triggers, once their stream is open.
        var watermark: Watermark?
        /// Scheduled triggers: the fire time being waited for (nil while a function runs).
        var sleepingUntil: Date?
        /// Deliveries running now (any trigger type).
        var inFlight = 0
        var unsaved = false
        var drain: Task<Void, Never>?
        var lastPositionSave = ContinuousClock.now
    }

    private let ledger: TriggerLedger
    private let inner: Mutex<Snapshot>

    /// How often a position advanced only by skipped entries (other namespaces, filtered out) is saved:
    /// often enough that a quiet trigger's token never falls out of the retained history.
    static let skippedPositionSaveInterval = Duration.milliseconds(500)

    init(state: TriggerState, ledger: TriggerLedger) {
        self.ledger = ledger
        inner = Mutex(Snapshot(state: state))
    }

    var snapshot: Snapshot { inner.withLock { $0 } }
    var state: TriggerState { inner.withLock { $0.state } }

    /// Changes the state and saves it.
    func update(_ change: (inout TriggerState) -> Void) {
        inner.withLock { change(&$0.state) }
        save()
    }

    func setRunState(_ runState: RunState) {
        inner.withLock { $0.runState = runState }
    }

    /// Suspends the trigger (unless it already is: the first cause is the one worth keeping).
    func suspend(_ suspension: TriggerSuspension) {
        inner.withLock {
            $0.runState = .suspended
            if $0.state.suspension == nil { $0.state.suspension = suspension }
            if let position = $0.watermark?.position { $0.state.position = position }
        }
        save()
    }

    func warn(_ message: String) {
        update { $0.warn(message) }
    }

    func recordFailedAttempt() {
        update { $0.failedAttempts += 1 }
    }

    // MARK: Database triggers

    /// The stream is open and reads after `position`.
    func startConsuming(at position: Int64) {
        inner.withLock {
            $0.watermark = Watermark(position: position)
            $0.state.position = position
            $0.runState = .running
        }
        save()
    }

    func skip(_ sequence: Int64) {
        let due = inner.withLock { snapshot -> Bool in
            snapshot.watermark?.skip(sequence)
            guard let position = snapshot.watermark?.position, position != snapshot.state.position,
                snapshot.lastPositionSave.duration(to: .now) >= Self.skippedPositionSaveInterval
            else { return false }
            snapshot.state.position = position
            return true
        }
        if due { save() }
    }

    func begin(_ sequence: Int64) {
        inner.withLock {
            $0.watermark?.begin(sequence)
            $0.inFlight += 1
        }
    }

    /// An event's function finished (or its event went to the dead-letter queue).
    func finish(_ event: ChangeEvent, at time: Date, deadLettered: Bool) {
        inner.withLock {
            $0.watermark?.finish(event.id.sequence)
            $0.inFlight -= 1
            if let position = $0.watermark?.position { $0.state.position = position }
            $0.state.record(eventId: event.id.data, eventTime: event.wallTime.map(\.date), at: time)
            if deadLettered { $0.state.deadLettered += 1 } else { $0.state.processed += 1 }
        }
        save()
    }

    /// A delivery ended without finishing (the runtime is stopping): the event stays in flight in the
    /// watermark, so the saved position stays before it.
    func abandon() {
        inner.withLock { $0.inFlight -= 1 }
    }

    /// Saves the position reached by skipped entries now (before stopping, or when idle).
    func savePosition() {
        let changed = inner.withLock { snapshot -> Bool in
            guard let position = snapshot.watermark?.position, position != snapshot.state.position else { return false }
            snapshot.state.position = position
            return true
        }
        if changed { save() }
    }

    // MARK: Scheduled and authentication triggers

    func sleeping(until time: Date?) {
        inner.withLock { $0.sleepingUntil = time }
    }

    func beginDelivery() {
        inner.withLock { $0.inFlight += 1 }
    }

    func endDelivery(eventId: String, eventTime: Date, at time: Date, outcome: DeliveryOutcome?) {
        inner.withLock {
            $0.inFlight -= 1
            switch outcome {
            case .delivered:
                $0.state.processed += 1
                $0.state.record(eventId: eventId, eventTime: eventTime, at: time)
            case .failed:
                $0.state.deadLettered += 1
                $0.state.record(eventId: eventId, eventTime: eventTime, at: time)
            case .interrupted, nil: break
            }
        }
        save()
    }

    // MARK: Saving

    func save() {
        inner.withLock { snapshot in
            snapshot.unsaved = true
            guard snapshot.drain == nil else { return }
            snapshot.drain = Task { await self.drainSaves() }
        }
    }

    /// Returns once every save asked for so far is written (or failed: a closed store).
    func flush() async {
        while let drain = inner.withLock({ $0.drain }) { await drain.value }
    }

    private func drainSaves() async {
        while true {
            let next = inner.withLock { snapshot -> TriggerState? in
                guard snapshot.unsaved else {
                    snapshot.drain = nil
                    return nil
                }
                snapshot.unsaved = false
                snapshot.lastPositionSave = .now
                return snapshot.state
            }
            guard let next else { return }
            // A failed save (the store closing) only means more redelivery after a restart.
            try? await ledger.save(next)
        }
    }
}

extension TriggerState {
    mutating func record(eventId: String, eventTime: Date?, at time: Date) {
        lastEventId = eventId
        if let eventTime { lastEventTime = eventTime }
        lastProcessedAt = time
    }
}
