import BSON
import Foundation
import Switchyard

/// Triggers: status with counters and lag, suspend and resume, dead letters and their redelivery.
///
/// - `GET  /triggers` → `{triggers: [status]}`; a status has `source`, what fires the trigger (namespace and
///   operations, schedule, or authentication operation and providers)
/// - `GET  /triggers/events` → server-sent `triggers` events (`{triggers: [status]}`) whenever a status changes
/// - `GET  /triggers/{name}` → status
/// - `POST /triggers/{name}/suspend` → status
/// - `POST /triggers/{name}/resume` with optional `{fromToken: true|false}` (default true: redeliver from the
///   saved resume token; false: skip what happened while suspended), or Atlas's `{skipCatchupEvents: true|false}`
///   (the other way round) → status
/// - `GET  /deadLetters?trigger=` → `{deadLetters: [...]}`
/// - `POST /deadLetters/{id}/redeliver` → `{redelivered: id}`
extension AdminAPI {
    /// How often the live trigger view looks for changes.
    static let triggerPollInterval: Duration = .milliseconds(500)

    func addTriggerRoutes(to routes: inout RouterGroup) {
        let app = self.app
        let triggers = app.triggers
        routes.add("GET", "/triggers") { _, _ in
            .json(Self.statusList(try await triggers.statuses(), of: app))
        }
        routes.add("GET", "/triggers/events") { _, _ in
            let stream = EventStream()
            let task = Task {
                var last: [TriggerStatus]?
                while !Task.isCancelled {
                    if let statuses = try? await triggers.statuses(), statuses != last {
                        last = statuses
                        stream.send(
                            event: "triggers", data: Self.statusList(statuses, of: app).extendedJSON(mode: .relaxed))
                    }
                    try? await Task.sleep(for: Self.triggerPollInterval)
                }
            }
            stream.onTermination { task.cancel() }
            return .events(stream)
        }
        routes.add("GET", "/triggers/{name}") { _, parameters in
            let name = parameters["name"] ?? ""
            return .json(Self.document(try await triggers.status(of: name), of: app))
        }
        routes.add("POST", "/triggers/{name}/suspend") { _, parameters in
            let name = parameters["name"] ?? ""
            try await triggers.suspend(trigger: name)
            return .json(Self.document(try await triggers.status(of: name), of: app))
        }
        routes.add("POST", "/triggers/{name}/resume") { request, parameters in
            let name = parameters["name"] ?? ""
            var fromToken = true
            if !request.body.isEmpty {
                let body = try request.bodyDocument()
                func flag(_ key: String) throws(APIError) -> Bool? {
                    switch body[key] {
                    case nil: return nil
                    case .bool(let value)?: return value
                    case let other?:
                        throw APIError.badRequest(
                            "'\(key)' must be true or false, not \(other.extendedJSON(mode: .relaxed))")
                    }
                }
                let token = try flag("fromToken")
                let skip = try flag("skipCatchupEvents")
                if let token, let skip, token == skip {
                    throw APIError.badRequest(
                        "'fromToken: \(token)' and 'skipCatchupEvents: \(skip)' ask for opposite things; give one")
                }
                fromToken = token ?? skip.map { !$0 } ?? true
            }
            try await triggers.resume(trigger: name, fromToken: fromToken)
            return .json(Self.document(try await triggers.status(of: name), of: app))
        }
        routes.add("GET", "/deadLetters") { request, _ in
            let trigger = request.query["trigger"].flatMap { $0.isEmpty ? nil : $0 }
            if let trigger { _ = try await triggers.status(of: trigger) }
            let letters = try await triggers.deadLetters(trigger: trigger)
            return .json(["deadLetters": .array(letters.map { .document($0.adminDocument) })])
        }
        routes.add("POST", "/deadLetters/{id}/redeliver") { _, parameters in
            let text = parameters["id"] ?? ""
            guard let id = ObjectId(hex: text) else {
                throw APIError.badRequest("a dead letter id is 24 hex digits, not '\(text)'")
            }
            try await triggers.redeliver(deadLetterId: id)
            return .json(["redelivered": .objectId(id)])
        }
    }

    static func statusList(_ statuses: [TriggerStatus], of app: SwitchyardApp) -> BSONDocument {
        ["triggers": .array(statuses.map { .document(document($0, of: app)) })]
    }

    /// The status with `source`, what fires the trigger (`product.book INSERT, DELETE`, a schedule, or
    /// `CREATE via anon-user`), as `switchyard validate` describes it.
    static func document(_ status: TriggerStatus, of app: SwitchyardApp) -> BSONDocument {
        var document = status.adminDocument
        if let definition = app.configuration.definition.triggers.first(where: { $0.name == status.name }) {
            document["source"] = .string(definition.sourceDescription(now: Date()))
        }
        return document
    }
}

extension TriggerStatus {
    /// `{name, type, function, state, ordering?, maxConcurrency?, processed, failedAttempts, deadLettered, inFlight,
    /// pendingLogEntries?, lagSeconds?, heartbeat?, lastClusterTime?, lastEventId?, lastEventTime?,
    /// lastProcessedAt?, resumeGap?: {after, through, skippedEntries, time}, suspension?: {reason, code?,
    /// failedEventId?, time, resumesWhenStorageReturns}, inMemoryOnly, warnings, node?}`; `ordering` is `ordered`,
    /// `unordered` or `byDocumentKey` (database triggers).
    var adminDocument: BSONDocument {
        var document: BSONDocument = [
            "name": .string(name), "type": .string(type), "function": .string(function),
            "state": .string(state.rawValue), "processed": .int64(Int64(processed)),
            "failedAttempts": .int64(Int64(failedAttempts)), "deadLettered": .int64(Int64(deadLettered)),
            "inFlight": .int64(Int64(inFlight)),
        ]
        if let ordering {
            document.append("ordering", .string(ordering.name))
            if ordering != .ordered { document.append("maxConcurrency", .int64(Int64(ordering.maxConcurrency))) }
        }
        if let pendingLogEntries { document.append("pendingLogEntries", .int64(Int64(pendingLogEntries))) }
        if let lagSeconds { document.append("lagSeconds", .double(lagSeconds)) }
        if let heartbeat { document.append("heartbeat", .adminDate(heartbeat)) }
        if let lastClusterTime { document.append("lastClusterTime", .timestamp(lastClusterTime)) }
        if let lastEventId { document.append("lastEventId", .string(lastEventId)) }
        if let lastEventTime { document.append("lastEventTime", .adminDate(lastEventTime)) }
        if let lastProcessedAt { document.append("lastProcessedAt", .adminDate(lastProcessedAt)) }
        if let resumeGap {
            document.append(
                "resumeGap",
                [
                    "after": .string(ResumeToken(sequence: resumeGap.after).data),
                    "through": .string(ResumeToken(sequence: resumeGap.through).data),
                    "skippedEntries": .int64(resumeGap.skippedEntries), "time": .adminDate(resumeGap.time),
                ])
        }
        if let suspension {
            var suspended: BSONDocument = ["reason": .string(suspension.reason), "time": .adminDate(suspension.time)]
            if let code = suspension.code { suspended.append("code", .int64(Int64(code.rawValue))) }
            if let id = suspension.failedEventId { suspended.append("failedEventId", .string(id)) }
            suspended.append("resumesWhenStorageReturns", .bool(suspension.resumesWhenStorageReturns))
            document.append("suspension", .document(suspended))
        }
        document.append("inMemoryOnly", .bool(isInMemoryOnly))
        document.append("warnings", .array(warnings.map { .string($0) }))
        if let node { document.append("node", .string(node)) }
        return document
    }
}

extension DeadLetter {
    /// `{_id, trigger, eventId, kind, event, error, attempts, failedAt}`.
    var adminDocument: BSONDocument {
        [
            "_id": .objectId(id), "trigger": .string(trigger), "eventId": .string(eventId),
            "kind": .string(input.kindName), "event": .document(input.eventDocument), "error": .string(error),
            "attempts": .int64(Int64(attempts)), "failedAt": .adminDate(failedAt),
        ]
    }
}

extension BSON {
    /// A BSON datetime to the millisecond (relaxed Extended JSON prints it as `{"$date": "<ISO 8601>"}`).
    static func adminDate(_ date: Date) -> BSON {
        .datetime(BSONDate(date))
    }
}
