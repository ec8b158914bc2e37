import BSON
import DocumentStore
import Foundation

/// An event a trigger gave up on after its last retry (an unordered database trigger, a scheduled or an
/// authentication trigger), kept in `local.deadLetters` with everything needed to deliver it again.
package struct DeadLetter: Sendable, Equatable {
    package var id: ObjectId
    package var trigger: String
    package var eventId: String
    package var input: TriggerInput
    /// The last attempt's error.
    package var error: String
    /// Attempts made so far, redeliveries included.
    package var attempts: Int
    package var failedAt: Date

    package init(
        id: ObjectId = ObjectId(), trigger: String, eventId: String, input: TriggerInput, error: String, attempts: Int,
        failedAt: Date
    ) {
        self.id = id
        self.trigger = trigger
        self.eventId = eventId
        self.input = input
        self.error = error
        self.attempts = attempts
        self.failedAt = failedAt
    }
}

extension TriggerInput: Equatable {
    package static func == (lhs: TriggerInput, rhs: TriggerInput) -> Bool {
        switch (lhs, rhs) {
        case (.database(let a), .database(let b)): a == b
        case (.scheduled(let a), .scheduled(let b)): a == b
        case (.authentication(let a), .authentication(let b)): a == b
        default: false
        }
    }
}

extension DeadLetter {
    var document: BSONDocument {
        var document: BSONDocument = [
            "_id": .objectId(id), "trigger": .string(trigger), "eventId": .string(eventId),
        ]
        switch input {
        case .database(let event):
            document.append("kind", "database")
            document.append("operationType", .string(event.operationType.rawValue))
            document.append("event", .document(event.raw))
        case .scheduled(let event):
            document.append("kind", "scheduled")
            document.append(
                "event", ["triggerName": .string(event.triggerName), "scheduledTime": .date(event.scheduledTime)])
        case .authentication(let event):
            document.append("kind", "authentication")
            document.append("event", .document(event.raw))
        }
        document.append("error", .string(error))
        document.append("attempts", .int64(Int64(attempts)))
        document.append("failedAt", .date(failedAt))
        return document
    }

    /// Reads a stored dead letter; nil when the document is not a complete one.
    package init?(document: BSONDocument) {
        guard let id = document["_id"]?.objectIdValue, let trigger = document["trigger"]?.stringValue,
            let eventId = document["eventId"]?.stringValue, let event = document["event"]?.documentValue
        else { return nil }
        let input: TriggerInput
        switch document["kind"]?.stringValue {
        case "database":
            guard let token = ResumeToken(["_data": .string(eventId)]),
                let type = document["operationType"]?.stringValue.flatMap(ChangeEvent.OperationType.init(rawValue:))
            else { return nil }
            input = .database(ChangeEvent(document: event, id: token, operationType: type))
        case "scheduled":
            guard let name = event["triggerName"]?.stringValue, let time = event["scheduledTime"]?.dateValue else {
                return nil
            }
            input = .scheduled(ScheduledEvent(triggerName: name, scheduledTime: time))
        case "authentication":
            guard let authEvent = AuthEvent(document: event) else { return nil }
            input = .authentication(authEvent)
        default:
            return nil
        }
        self.init(
            id: id, trigger: trigger, eventId: eventId, input: input, error: document["error"]?.stringValue ?? "",
            attempts: Int(clamping: document["attempts"]?.int64Value ?? 0),
            failedAt: document["failedAt"]?.dateValue ?? Date(timeIntervalSince1970: 0))
    }
}

extension AuthEvent {
    /// Reads back `raw` (as stored in a dead letter); nil when a required field is missing.
    init?(document: BSONDocument) {
        guard let type = document["operationType"]?.stringValue.flatMap(OperationType.init(rawValue:)),
            let user = document["user"]?.documentValue, let userId = user["id"]?.stringValue,
            let time = document["time"]?.dateValue
        else { return nil }
        let identities = (user["identities"]?.arrayValue ?? []).compactMap { value -> FunctionUser.Identity? in
            guard let identity = value.documentValue, let id = identity["id"]?.stringValue,
                let provider = identity["provider_type"]?.stringValue
            else { return nil }
            return FunctionUser.Identity(id: id, providerType: provider)
        }
        self.init(
            operationType: type, providers: document["providers"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            user: FunctionUser(
                id: userId, kind: user["type"]?.stringValue.flatMap(FunctionUser.Kind.init(rawValue:)) ?? .normal,
                data: user["data"]?.documentValue ?? [:], customData: user["custom_data"]?.documentValue ?? [:],
                identities: identities),
            time: time)
    }
}
