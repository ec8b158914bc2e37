import BSON
import Foundation

/// Authentication triggers: the auth layer reports user creation, login and deletion here.
///
/// Delivery is in memory: an event still being delivered (or waiting for a retry) when the process dies
/// is lost. One that exhausts its retries goes to the dead-letter queue, which is durable.
extension TriggerRuntime {
    /// Delivers `event` to every running authentication trigger whose operation matches and whose
    /// providers include one of the event's; returns their names. Returns before the functions run
    /// (`awaitIdle` waits for them). One user's events are delivered in the order they were fired (a login's
    /// triggers run after those of its user's creation have finished); different users' events run side by side.
    @discardableResult
    package func fire(authEvent event: AuthEvent) -> [String] {
        guard isRunning else { return [] }
        let eventId = ObjectId().hex
        let user = event.user.id
        let earlier = latestAuthenticationEvents[user]?.tasks ?? []
        var tasks: [Task<Void, Never>] = []
        var delivered: [String] = []
        for definition in definitions where !definition.disabled {
            guard case .authentication(let trigger) = definition.kind, Self.matches(trigger, event),
                let item = progress[definition.name], item.snapshot.runState == .running
            else { continue }
            delivered.append(definition.name)
            let stop = TriggerStop()
            let (ledger, clock) = (ledger, configuration.clock)
            let delivery = TriggerDelivery(
                handler: handler, retry: configuration.retry, stop: stop, clock: clock, progress: item)
            let id = ObjectId()
            item.beginDelivery()
            let task = Task {
                for delivery in earlier { await delivery.value }
                let outcome = await delivery.deliver(
                    TriggerInvocation(trigger: definition, input: .authentication(event), eventId: eventId, attempt: 1)
                ) { _ in item.recordFailedAttempt() }
                var recorded = outcome
                if case .failed(let error, let attempts) = outcome {
                    let letter = DeadLetter(
                        trigger: definition.name, eventId: eventId, input: .authentication(event), error: "\(error)",
                        attempts: attempts, failedAt: clock.now())
                    if (try? await ledger.add(letter)) == nil { recorded = .interrupted }
                }
                item.endDelivery(eventId: eventId, eventTime: event.time, at: clock.now(), outcome: recorded)
                self.finishAuthenticationDelivery(id, eventId: eventId, user: user)
            }
            authenticationDeliveries[id] = TriggerTask(task: task, stop: stop)
            tasks.append(task)
        }
        if !tasks.isEmpty {
            latestAuthenticationEvents[user] = AuthenticationEventDeliveries(
                eventId: eventId, tasks: tasks, unfinished: tasks.count)
        }
        return delivered
    }

    private func finishAuthenticationDelivery(_ id: ObjectId, eventId: String, user: String) {
        authenticationDeliveries[id] = nil
        guard latestAuthenticationEvents[user]?.eventId == eventId else { return }
        latestAuthenticationEvents[user]?.unfinished -= 1
        if latestAuthenticationEvents[user]?.unfinished == 0 { latestAuthenticationEvents[user] = nil }
    }

    static func matches(_ trigger: AuthenticationTrigger, _ event: AuthEvent) -> Bool {
        let operation: AuthenticationOperation =
            switch event.operationType {
            case .create: .create
            case .login: .login
            case .delete: .delete
            }
        return trigger.operation == operation
            && event.providers.contains { provider in
                trigger.providers.contains { $0.rawValue == provider }
            }
    }
}
