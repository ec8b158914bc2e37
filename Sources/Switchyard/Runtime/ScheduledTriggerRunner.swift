import BSON
import DocumentStore
import Foundation

/// Fires one scheduled trigger on its cron schedule (UTC) until cancelled. Fire times missed since the
/// last one recorded are caught up first, one after another, unless the trigger skips catch-up events. A run that
/// fails on the store's storage (a full disk) suspends the trigger for storage: once storage works, that fire time
/// runs again and the ones that passed meanwhile are caught up, so no run is lost.
struct ScheduledTriggerRunner: Sendable {
    let definition: TriggerDefinition
    let trigger: ScheduledTrigger
    let progress: TriggerProgress
    let delivery: TriggerDelivery
    let ledger: TriggerLedger
    let clock: any TriggerClock

    func run() async {
        defer {
            progress.sleeping(until: nil)
            if progress.snapshot.runState != .suspended { progress.setRunState(.stopped) }
        }
        var storageTries = 0
        // Suspended by a storage failure before a restart: waited out like one met now.
        if progress.state.suspension?.resumesWhenStorageReturns == true {
            guard await progress.waitUntilStorageWorks(tries: &storageTries) else { return }
            progress.continueAfterStorageFailure()
        }
        // Set by the runtime before launching.
        var last = progress.state.lastFireTime ?? clock.now()
        progress.setRunState(.running)
        while !Task.isCancelled {
            let next = trigger.schedule.next(after: last)
            progress.sleeping(until: next)
            do { try await clock.sleep(until: next) } catch { return }
            if Task.isCancelled { return }
            progress.sleeping(until: nil)
            guard await fire(at: next, storageTries: &storageTries) else { return }
            // A run finished: a later storage failure waits from the shortest backoff again.
            storageTries = 0
            last = next
        }
    }

    /// Runs the function for one fire time, again after each storage failure once storage works; false when
    /// interrupted by the runtime stopping.
    private func fire(at time: Date, storageTries: inout Int) async -> Bool {
        let event = ScheduledEvent(triggerName: definition.name, scheduledTime: time)
        let eventId = Self.eventId(name: definition.name, time: time)
        while true {
            progress.beginDelivery()
            let outcome = await delivery.deliver(
                TriggerInvocation(trigger: definition, input: .scheduled(event), eventId: eventId, attempt: 1)
            ) { _ in progress.recordFailedAttempt() }
            let failure: (reason: String, error: StoreError)
            switch outcome {
            case .delivered:
                return finished(at: time, eventId: eventId, outcome: outcome)
            case .interrupted:
                progress.endDelivery(eventId: eventId, eventTime: time, at: clock.now(), outcome: outcome)
                return false
            case .failed(let error, let attempts):
                if let storage = StoreError.storageFailure(causing: error) {
                    failure = ("function \(definition.function) failed \(attempts) times: \(storage)", storage)
                    break
                }
                let letter = DeadLetter(
                    trigger: definition.name, eventId: eventId, input: .scheduled(event), error: "\(error)",
                    attempts: attempts, failedAt: clock.now())
                do {
                    try await ledger.add(letter)
                    return finished(at: time, eventId: eventId, outcome: outcome)
                } catch {
                    guard let storage = StoreError.storageFailure(causing: error) else {
                        // The store closed: the fire time is not recorded, so the next start runs it again.
                        progress.endDelivery(eventId: eventId, eventTime: time, at: clock.now(), outcome: .interrupted)
                        return false
                    }
                    failure = ("the failed run \(eventId) could not be dead-lettered: \(storage)", storage)
                }
            }
            progress.endDelivery(eventId: eventId, eventTime: time, at: clock.now(), outcome: .interrupted)
            progress.suspend(
                TriggerSuspension(
                    reason: failure.reason, code: failure.error.code, failedEventId: eventId, time: clock.now()))
            guard await progress.waitUntilStorageWorks(tries: &storageTries) else { return false }
            progress.continueAfterStorageFailure()
        }
    }

    /// Records the fire time as run (delivered or dead-lettered); true.
    private func finished(at time: Date, eventId: String, outcome: DeliveryOutcome) -> Bool {
        progress.update { $0.lastFireTime = time }
        progress.endDelivery(eventId: eventId, eventTime: time, at: clock.now(), outcome: outcome)
        return true
    }

    /// `<trigger>@<fire time in ISO 8601>`: stable across retries and restarts.
    static func eventId(name: String, time: Date) -> String {
        let date = BSONDate(time)
        return "\(name)@\(ISO8601Timestamp.format(date) ?? String(date.millisecondsSinceEpoch))"
    }
}
