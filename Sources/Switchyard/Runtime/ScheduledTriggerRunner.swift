import BSON
import Foundation

/// Fires one scheduled trigger on its cron schedule (UTC) until cancelled. Fire times missed since the
/// last one recorded are caught up first, one after another, unless the trigger skips catch-up events.
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
            progress.setRunState(.stopped)
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
            guard await fire(at: next) else { return }
            last = next
        }
    }

    /// Runs the function for one fire time; false when interrupted by the runtime stopping.
    private func fire(at time: Date) async -> Bool {
        let event = ScheduledEvent(triggerName: definition.name, scheduledTime: time)
        let eventId = Self.eventId(name: definition.name, time: time)
        progress.beginDelivery()
        let outcome = await delivery.deliver(
            TriggerInvocation(trigger: definition, input: .scheduled(event), eventId: eventId, attempt: 1)
        ) { _ in progress.recordFailedAttempt() }
        if case .failed(let error, let attempts) = outcome {
            let letter = DeadLetter(
                trigger: definition.name, eventId: eventId, input: .scheduled(event), error: "\(error)",
                attempts: attempts, failedAt: clock.now())
            do {
                try await ledger.add(letter)
            } catch {
                progress.endDelivery(eventId: eventId, eventTime: time, at: clock.now(), outcome: .interrupted)
                return false
            }
        }
        if case .interrupted = outcome {
            progress.endDelivery(eventId: eventId, eventTime: time, at: clock.now(), outcome: outcome)
            return false
        }
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
