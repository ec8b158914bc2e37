import BSON
import DocumentStore
import Foundation
import Synchronization

/// One trigger's live state: its saved `TriggerState`, whether it runs, what is in flight, and where a
/// database trigger's stream has read to. Shared by the trigger's runner (and its delivery tasks), the
/// runtime's control calls and `awaitIdle`. Saves are coalesced: at most one write of the newest state is
/// in flight, so a later save can never be overtaken by an earlier one. A finished event's save is also
/// paced (see `finishedEventSaveInterval`); every other save, and `flush()`, is written at once. A save the store's
/// storage refused (a full disk) stays in memory and is written again after a backoff, until it is written.
final class TriggerProgress: Sendable {
    enum RunState: Sendable, Equatable {
        /// Launched, not yet consuming (opening its stream, loading its start point).
        case starting
        case running
        case suspended
        case disabled
        case stopped
        /// Waiting for the trigger's lease, which another node holds (a shared database): not consuming.
        case standby
    }

    struct Snapshot: Sendable {
        var state: TriggerState
        var runState: RunState = .stopped
        /// Database triggers, once their stream is open.
        var watermark: Watermark?
        /// Scheduled triggers: the fire time being waited for (nil while a function runs).
        var sleepingUntil: Date?
        /// Events begun and not finished (any trigger type): running, waiting out a retry's backoff, or waiting.
        var inFlight = 0
        /// Of those, events read by a `byDocumentKey` trigger that no delivery has started yet: queued behind their
        /// document's running event, or held by the reader until a slot frees. They wait for a running delivery,
        /// so `awaitIdle` counts only the others as running.
        var waiting = 0
        /// When the deliveries waiting out a retry's backoff (on the runtime's clock) try again; one per delivery.
        var backoffs: [Date] = []
        /// When the runner last showed it works (opened its stream, read an entry, began or finished an event,
        /// woke for a fire time), on the runtime's clock. In memory only.
        var heartbeat: Date?
        var unsaved = false
        /// An unsaved change that must not wait out a pause (anything but finished events).
        var urgent = false
        var drain: Task<Void, Never>?
        /// The drain's wait between paced saves; cancelled to end it early.
        var pause: Task<Void, Never>?
        var lastPositionSave = ContinuousClock.now
        /// Saves refused in a row because the store's storage failed: the state is in memory only while above 0.
        var failedSaves = 0
        /// The wait before writing again what storage refused.
        var saveRetry: Task<Void, Never>?
    }

    private let ledger: TriggerLedger
    private let storageRetry: RetryPolicy
    private let clock: any TriggerClock
    /// Where what the operator should hear of goes (a lost resume point skipped): the runtime's log.
    private let logger: (@Sendable (String) -> Void)?
    /// Told of each suspension for a cause other than a request (the trigger's `onSuspend`).
    private let alert: (@Sendable (TriggerSuspension) async -> Void)?
    private let inner: Mutex<Snapshot>
    /// The lease tenure the trigger runs under on a shared database; nil: it runs unconditionally (no lease), or
    /// not at all yet. Once the tenure ended, nothing is saved and no function starts (`isOwned`).
    private let tenure = Mutex<(lease: StoreLease, tenure: Int?)?>(nil)

    /// How often a position advanced only by skipped entries (other namespaces, filtered out) is saved:
    /// often enough that a quiet trigger's token never falls out of the retained history.
    static let skippedPositionSaveInterval = Duration.milliseconds(500)

    /// While events keep finishing, a database trigger's state is written at most this often: each write
    /// is a store transaction costing about as much as the insert behind the event, so saving after every
    /// event halved the store's write rate. The position still only covers finished events, so a crash
    /// redelivers what finished since the last write (this long's worth at most) and never skips one.
    static let finishedEventSaveInterval = Duration.milliseconds(20)

    /// Paced saves are written on ticks every `finishedEventSaveInterval` from here, the same for every
    /// trigger: the store commits writes that arrive together in one transaction, so 20 busy triggers
    /// cost one commit per tick instead of 20 commits at scattered times (each one also costing a
    /// writer its inline commit).
    static let saveTickOrigin = ContinuousClock.now

    /// The first tick after `instant`.
    static func saveTick(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant {
        let interval = finishedEventSaveInterval
        let ticks = Int64((saveTickOrigin.duration(to: instant) / interval).rounded(.down)) + 1
        return saveTickOrigin.advanced(by: interval * ticks)
    }

    init(
        state: TriggerState, ledger: TriggerLedger, storageRetry: RetryPolicy = RetryPolicy(),
        clock: any TriggerClock = WallClock(), logger: (@Sendable (String) -> Void)? = nil,
        alert: (@Sendable (TriggerSuspension) async -> Void)? = nil
    ) {
        self.ledger = ledger
        self.storageRetry = storageRetry
        self.clock = clock
        self.logger = logger
        self.alert = alert
        inner = Mutex(Snapshot(state: state))
    }

    var snapshot: Snapshot { inner.withLock { $0 } }

    /// Runs the trigger under `lease`'s current tenure (none: it does not hold the lease, and must not run).
    func own(_ lease: StoreLease) {
        let current = lease.tenure
        tenure.withLock { $0 = (lease, current) }
    }

    /// Whether this node may deliver the trigger's events and save its state: it holds the lease under the tenure
    /// it started with (always, without a lease).
    var isOwned: Bool {
        tenure.withLock { owner in
            guard let owner else { return true }
            return owner.tenure.map(owner.lease.holds) ?? false
        }
    }
    var state: TriggerState { inner.withLock { $0.state } }

    /// Changes the state and saves it.
    func update(_ change: (inout TriggerState) -> Void) {
        inner.withLock { change(&$0.state) }
        save()
    }

    func setRunState(_ runState: RunState) {
        inner.withLock { $0.runState = runState }
    }

    /// Suspends the trigger (unless it already is: the first cause is the one worth keeping; `replacing` a
    /// suspension that waits for storage, by request, makes it wait for someone to resume it instead). A
    /// suspension not asked for (`replacing` is the request's) is told to the alert, which counts as a delivery in
    /// flight while it runs, so `awaitIdle` waits for it.
    func suspend(_ suspension: TriggerSuspension, replacing: Bool = false) {
        let alerting = inner.withLock { snapshot -> Bool in
            snapshot.runState = .suspended
            let isNew = snapshot.state.suspension == nil
            if isNew || replacing { snapshot.state.suspension = suspension }
            if let position = snapshot.watermark?.position { snapshot.state.position = position }
            guard isNew, !replacing, alert != nil else { return false }
            snapshot.inFlight += 1
            return true
        }
        save()
        if alerting, let alert {
            Task {
                await alert(suspension)
                self.inner.withLock { $0.inFlight -= 1 }
            }
        }
    }

    /// Lifts a suspension for a storage failure: storage works again, and the runner goes on from the saved
    /// position.
    func resumeAfterStorageFailure() {
        inner.withLock {
            $0.state.suspension = nil
            $0.runState = .starting
        }
        save()
    }

    /// Lifts a suspension for a storage failure while the runner goes on consuming (an unordered trigger delivers
    /// again the events that failed, in place); a suspension for another cause stays.
    func continueAfterStorageFailure() {
        let lifted = inner.withLock { snapshot -> Bool in
            guard snapshot.state.suspension?.resumesWhenStorageReturns == true else { return false }
            snapshot.state.suspension = nil
            snapshot.runState = .running
            return true
        }
        if lifted { save() }
    }

    /// Whether the trigger is suspended until storage works again.
    var isWaitingForStorage: Bool {
        inner.withLock { $0.state.suspension?.resumesWhenStorageReturns == true }
    }

    func warn(_ message: String) {
        update { $0.warn(message) }
    }

    /// The resume point had left the change log and the trigger tolerates it: it goes on from the log's end,
    /// and says what it skipped (in its warnings, its status, and the runtime's log).
    func resumedAfterLostHistory(_ gap: TriggerResumeGap?, warning: String) {
        update {
            $0.warn(warning)
            if let gap { $0.resumeGap = gap }
        }
        logger?(warning)
    }

    func recordFailedAttempt() {
        update { $0.failedAttempts += 1 }
    }

    // MARK: Database triggers

    /// The stream is open and reads after `position`.
    func startConsuming(at position: Int64) {
        let now = clock.now()
        inner.withLock {
            $0.watermark = Watermark(position: position)
            $0.state.position = position
            $0.runState = .running
            $0.heartbeat = now
        }
        save()
    }

    func skip(_ sequence: Int64) {
        let now = clock.now()
        let due = inner.withLock { snapshot -> Bool in
            snapshot.heartbeat = now
            snapshot.watermark?.skip(sequence)
            guard let position = snapshot.watermark?.position, position != snapshot.state.position,
                snapshot.lastPositionSave.duration(to: .now) >= Self.skippedPositionSaveInterval
            else { return false }
            snapshot.state.position = position
            return true
        }
        if due { save() }
    }

    /// An event read from the log is in flight until it finishes; `waiting` when no delivery starts it yet
    /// (`byDocumentKey`: see `startWaiting()`).
    func begin(_ sequence: Int64, waiting: Bool = false) {
        let now = clock.now()
        inner.withLock {
            $0.watermark?.begin(sequence)
            $0.inFlight += 1
            if waiting { $0.waiting += 1 }
            $0.heartbeat = now
        }
    }

    /// A delivery starts one of the waiting events.
    func startWaiting() {
        inner.withLock { $0.waiting -= 1 }
    }

    /// Waiting events that will not be started (the runtime is stopping): they stay in the watermark, as
    /// `abandon()` leaves an event.
    func abandonWaiting(_ count: Int) {
        inner.withLock {
            $0.waiting -= count
            $0.inFlight -= count
        }
    }

    /// An event's function finished (or its event went to the dead-letter queue).
    func finish(_ entry: ChangeFeed.Entry, at time: Date, deadLettered: Bool) {
        let eventTime = entry.event.wallTime.map(\.date)
        let clusterTime = entry.event.clusterTime
        inner.withLock {
            $0.watermark?.finish(entry.sequence)
            $0.inFlight -= 1
            if let position = $0.watermark?.position { $0.state.position = position }
            $0.state.record(eventId: entry.eventId, eventTime: eventTime, at: time)
            $0.heartbeat = time
            // Events of unordered triggers finish out of order: the latest cluster time processed is kept.
            if let clusterTime, $0.state.lastClusterTime.map({ $0 < clusterTime }) ?? true {
                $0.state.lastClusterTime = clusterTime
            }
            if deadLettered { $0.state.deadLettered += 1 } else { $0.state.processed += 1 }
        }
        save(paced: true)
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

    /// A delivery waits for its next attempt until `deadline`.
    func backoffStarted(until deadline: Date) {
        inner.withLock { $0.backoffs.append(deadline) }
    }

    func backoffEnded(until deadline: Date) {
        inner.withLock { snapshot in
            if let index = snapshot.backoffs.firstIndex(of: deadline) { snapshot.backoffs.remove(at: index) }
        }
    }

    // MARK: Scheduled and authentication triggers

    func sleeping(until time: Date?) {
        let now = clock.now()
        inner.withLock {
            $0.sleepingUntil = time
            $0.heartbeat = now
        }
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

    /// Writes the state soon. `paced` saves (finished events) may wait out the interval since the last
    /// write; any other save ends such a wait.
    func save(paced: Bool = false) {
        let pause = inner.withLock { snapshot -> Task<Void, Never>? in
            snapshot.unsaved = true
            if !paced { snapshot.urgent = true }
            guard snapshot.drain == nil else { return paced ? nil : snapshot.pause }
            snapshot.drain = Task { await self.drainSaves() }
            return nil
        }
        pause?.cancel()
    }

    /// Returns once every save asked for so far is written (or failed: a closed store).
    func flush() async {
        while let (drain, pause) = inner.withLock({ snapshot -> (Task<Void, Never>, Task<Void, Never>?)? in
            guard let drain = snapshot.drain else { return nil }
            snapshot.urgent = true
            return (drain, snapshot.pause)
        }) {
            pause?.cancel()
            await drain.value
        }
    }

    /// Whether the state is in memory only: its last save was refused by the store's storage.
    var isInMemoryOnly: Bool { inner.withLock { $0.failedSaves > 0 } }

    /// Writes the state now; whether it was written (false: storage refused it, or the store is closed).
    func saveNow() async -> Bool {
        save()
        await flush()
        return !isInMemoryOnly
    }

    /// Tries to write the state, after a backoff growing with `tries` (the storage retry policy's), until it is
    /// written; false when the waiting task was cancelled (the trigger stopped).
    func waitUntilStorageWorks(tries: inout Int) async -> Bool {
        while true {
            tries += 1
            do { try await Task.sleep(for: storageRetry.backoff(afterAttempt: tries)) } catch { return false }
            if Task.isCancelled { return false }
            if await saveNow() { return true }
        }
    }

    /// Ends the wait to write again what storage refused (the runtime is stopping: the next start writes anew).
    func stopRetryingSaves() {
        inner.withLock { snapshot -> Task<Void, Never>? in
            defer { snapshot.saveRetry = nil }
            return snapshot.saveRetry
        }?.cancel()
    }

    private func drainSaves() async {
        while true {
            let next = inner.withLock { snapshot -> (state: TriggerState, paced: Bool)? in
                guard snapshot.unsaved else {
                    snapshot.drain = nil
                    snapshot.urgent = false
                    return nil
                }
                let paced = !snapshot.urgent
                snapshot.unsaved = false
                snapshot.urgent = false
                snapshot.lastPositionSave = .now
                return (snapshot.state, paced)
            }
            guard let next else { return }
            // The lease was lost: the next holder owns the saved state now, and this one's is stale.
            guard isOwned else { continue }
            do {
                try await ledger.save(next.state)
                inner.withLock { $0.failedSaves = 0 }
            } catch let error where StoreError.storageFailure(causing: error) != nil {
                keepUnsaved()
                return
            } catch {
                // A failed save (the store closing) only means more redelivery after a restart.
            }
            guard next.paced else { continue }
            // Saves of events finishing meanwhile wait here, and only the newest state is written after.
            let pause = inner.withLock { snapshot -> Task<Void, Never>? in
                guard !snapshot.urgent else { return nil }
                let due = Self.saveTick(after: snapshot.lastPositionSave)
                let pause = Task { _ = try? await Task.sleep(until: due, clock: .continuous) }
                snapshot.pause = pause
                return pause
            }
            await pause?.value
            inner.withLock { $0.pause = nil }
        }
    }
}

extension TriggerProgress {
    /// Ends the drain after storage refused a save: the state stays unsaved, and is saved again after a backoff
    /// that grows with each refusal in a row (or sooner, by the next save asked for).
    fileprivate func keepUnsaved() {
        inner.withLock { snapshot in
            snapshot.unsaved = true
            snapshot.urgent = false
            snapshot.drain = nil
            snapshot.failedSaves += 1
            guard snapshot.saveRetry == nil else { return }
            let wait = storageRetry.backoff(afterAttempt: snapshot.failedSaves)
            snapshot.saveRetry = Task {
                do { try await Task.sleep(for: wait) } catch { return }
                self.inner.withLock { $0.saveRetry = nil }
                self.save()
            }
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
