import BSON
import Foundation
import Switchyard

/// Function invocations with their log lines (trigger attempts and client calls).
///
/// - `GET /invocations?function=&trigger=&outcome=&since=&until=&limit=` → `{invocations: [record], unwritten?:
///   {kept, dropped}}`, the newest `limit` (default 100, at most 1,000) oldest first; times are ISO 8601 or
///   milliseconds since 1970. `unwritten` counts the records the store could not write yet (its disk is full),
///   kept in memory until it can, and those dropped from that hold (the oldest, beyond 10,000).
/// - `GET /invocations/events?function=&trigger=&outcome=` → a server-sent `invocation` event per new record
/// - `POST /invocations/{id}/replay` → a database trigger run's event run again by the trigger's function against a
///   scratch copy of the data as it was right before the event (`TriggerReplay`), compared with the event's first
///   recorded attempt: `switchyard replay --json`'s report of one event. 404 for an unknown run, 400 for a run that
///   is no database trigger's or whose event the change log no longer holds.
///
/// A record is `{_id, trigger?, function, eventId?, attempt, userId, start, durationMs, outcome, error?, logs}`.
extension AdminAPI {
    func addInvocationRoutes(to routes: inout RouterGroup) {
        let invocations = app.invocations
        routes.add("GET", "/invocations") { request, _ in
            let filter = try InvocationFilter(request)
            let records = try await invocations.records(
                trigger: filter.trigger, function: filter.function,
                limit: try request.integerArgument("limit", default: 100, in: 1...1000),
                since: try request.dateArgument("since"), outcome: filter.outcome,
                until: try request.dateArgument("until"))
            var answer: BSONDocument = ["invocations": .array(records.map { .document($0.document) })]
            let unwritten = invocations.unwrittenRecords
            if unwritten.kept > 0 || unwritten.dropped > 0 {
                answer.append(
                    "unwritten", ["kept": .int64(Int64(unwritten.kept)), "dropped": .int64(Int64(unwritten.dropped))])
            }
            return .json(answer)
        }
        let app = self.app
        routes.add("POST", "/invocations/{id}/replay") { _, parameters in
            let text = parameters["id"] ?? ""
            guard let id = ObjectId(hex: text) else { throw APIError.badRequest("'\(text)' is not an invocation id") }
            guard let record = try await invocations.records(limit: .max).first(where: { $0.id == id }) else {
                throw APIError.notFound("no invocation \(text) in the invocation log")
            }
            guard let name = record.trigger, let eventId = record.eventId,
                let definition = app.configuration.triggers.first(where: { $0.name == name })
            else { throw APIError.badRequest("invocation \(text) is not a run of one of the app's database triggers") }
            let recording: TriggerRecording
            do throws(TriggerRecorder.Failure) {
                recording = try await TriggerRecorder(store: app.store, invocations: invocations, outbox: app.outboxLog)
                    .record(definition, window: .event(eventId))
            } catch {
                guard error.isBadInput else { throw APIError.internalError(error.description) }
                throw APIError.badRequest(error.description)
            }
            let replay = TriggerReplay(configuration: app.configuration, registry: app.registry)
            do throws(TriggerReplay.Failure) {
                _ = try replay.definition(for: recording)
            } catch {
                throw APIError.badRequest(error.description)
            }
            return .json(try await replay.run(recording).document)
        }
        routes.add("GET", "/invocations/events") { request, _ in
            let filter = try InvocationFilter(request)
            return Self.events(from: invocations.follow()) { record in
                guard filter.admits(record) else { return nil }
                return LiveEvent(
                    name: "invocation", id: record.id.hex, data: record.document.extendedJSON(mode: .relaxed))
            }
        }
    }
}

/// The record filters both the list and the live feed take.
struct InvocationFilter: Sendable {
    var function: String?
    var trigger: String?
    var outcome: InvocationRecord.Outcome?

    init(_ request: ServerRequest) throws(APIError) {
        function = request.query["function"].flatMap { $0.isEmpty ? nil : $0 }
        trigger = request.query["trigger"].flatMap { $0.isEmpty ? nil : $0 }
        if let text = request.query["outcome"], !text.isEmpty {
            guard let outcome = InvocationRecord.Outcome(rawValue: text) else {
                throw APIError.badRequest("'outcome' must be success, failure or timeout, not '\(text)'")
            }
            self.outcome = outcome
        }
    }

    func admits(_ record: InvocationRecord) -> Bool {
        (function == nil || record.function == function) && (trigger == nil || record.trigger == trigger)
            && (outcome == nil || record.outcome == outcome)
    }
}
