import BSON
import DocumentStore
import Foundation

extension TriggerInvocation {
    /// Why an event cannot be handed to a trigger by hand.
    package struct ManualEventError: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String

        package init(_ description: String) {
            self.description = description
        }
    }

    /// A first attempt of `trigger` on an event given by hand (`switchyard fire`, tests):
    ///
    /// - database triggers need `event`, a change event document (`ChangeEvent(raw:)` checks it);
    /// - scheduled triggers take `{"scheduledTime": <date>}` or nothing (then `now`);
    /// - authentication triggers need `user`, the user's id; the event names the trigger's providers.
    ///
    /// The event id is the change event's resume token, the scheduled time, or the user and time.
    package static func manual(
        _ trigger: TriggerDefinition, event: BSONDocument?, user: String? = nil, now: Date = Date()
    ) throws(ManualEventError) -> TriggerInvocation {
        switch trigger.kind {
        case .database:
            guard let event else {
                throw ManualEventError("'\(trigger.name)' is a database trigger: it needs a change event")
            }
            let change: ChangeEvent
            do {
                change = try ChangeEvent(raw: event)
            } catch {
                throw ManualEventError(error.message)
            }
            return TriggerInvocation(trigger: trigger, input: .database(change), eventId: change.id.data, attempt: 1)
        case .scheduled:
            var time = now
            if let event {
                guard case .datetime(let date) = event["scheduledTime"] else {
                    throw ManualEventError("a scheduled event needs scheduledTime, a date ({\"$date\": \"…\"})")
                }
                time = Date(timeIntervalSince1970: Double(date.millisecondsSinceEpoch) / 1000)
            }
            return TriggerInvocation(
                trigger: trigger, input: .scheduled(ScheduledEvent(triggerName: trigger.name, scheduledTime: time)),
                eventId: UTCTimestamp.text(time, milliseconds: true), attempt: 1)
        case .authentication(let authentication):
            guard let user else {
                throw ManualEventError("'\(trigger.name)' is an authentication trigger: it needs the user's id")
            }
            let providers = authentication.providers.sorted().map(\.rawValue)
            let identities = providers.prefix(1).map { FunctionUser.Identity(id: user, providerType: $0) }
            let operation: AuthEvent.OperationType =
                switch authentication.operation {
                case .create: .create
                case .login: .login
                case .delete: .delete
                }
            let event = AuthEvent(
                operationType: operation, providers: providers, user: FunctionUser(id: user, identities: identities),
                time: now)
            return TriggerInvocation(
                trigger: trigger, input: .authentication(event),
                eventId: "\(user)@\(UTCTimestamp.text(now, milliseconds: true))", attempt: 1)
        }
    }

    /// A note when a database trigger would not fire on this event's operation type; nil otherwise.
    package var operationTypeNote: String? {
        guard case .database(let database) = trigger.kind, case .database(let event) = input else { return nil }
        guard !database.operations.contains(where: { $0.changeEventType == event.operationType }) else { return nil }
        // Named as change events name them (`insert`, `createIndexes`); the sharding ones as Atlas does.
        let operations = database.operations.sorted().map { $0.changeEventType?.rawValue ?? $0.rawValue }
        return
            "'\(trigger.name)' fires on \(operations.joined(separator: ", ")) events, not \(event.operationType.rawValue)"
    }
}
