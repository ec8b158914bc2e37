import BSON
import DocumentStore
import Foundation

/// One execution of a function: a trigger attempt or a client's call. Error messages and log lines are
/// recorded with secret values scrubbed.
///
/// The fields live in one shared box, replaced when one changes: a served call's record is copied on its way to
/// the store, the live followers and `serve`'s printer, and each copy then costs one reference count instead of
/// one per string.
public struct InvocationRecord: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case success, failure, timeout
    }

    private struct Fields: Equatable, Sendable {
        var id: ObjectId
        var trigger: String?
        var function: String
        var eventId: String?
        var attempt: Int
        var userId: String
        var start: Date
        var duration: Duration
        var outcome: Outcome
        var error: String?
        var logs: [String]
    }

    private var shared: SharedFields<Fields>

    public var id: ObjectId {
        get { shared.fields.id }
        set { shared.change { $0.id = newValue } }
    }
    /// The trigger that ran the function; nil for a client's call.
    public var trigger: String? {
        get { shared.fields.trigger }
        set { shared.change { $0.trigger = newValue } }
    }
    public var function: String {
        get { shared.fields.function }
        set { shared.change { $0.function = newValue } }
    }
    /// The trigger event (stable across retries); nil for a client's call.
    public var eventId: String? {
        get { shared.fields.eventId }
        set { shared.change { $0.eventId = newValue } }
    }
    /// 1 for the first attempt.
    public var attempt: Int {
        get { shared.fields.attempt }
        set { shared.change { $0.attempt = newValue } }
    }
    /// The user the function ran as.
    public var userId: String {
        get { shared.fields.userId }
        set { shared.change { $0.userId = newValue } }
    }
    public var start: Date {
        get { shared.fields.start }
        set { shared.change { $0.start = newValue } }
    }
    public var duration: Duration {
        get { shared.fields.duration }
        set { shared.change { $0.duration = newValue } }
    }
    public var outcome: Outcome {
        get { shared.fields.outcome }
        set { shared.change { $0.outcome = newValue } }
    }
    public var error: String? {
        get { shared.fields.error }
        set { shared.change { $0.error = newValue } }
    }
    /// What the function wrote with `context.log`, bounded (see `FunctionContext.log`).
    public var logs: [String] {
        get { shared.fields.logs }
        set { shared.change { $0.logs = newValue } }
    }

    package init(
        id: ObjectId = ObjectId(), trigger: String? = nil, function: String, eventId: String? = nil, attempt: Int = 1,
        userId: String, start: Date, duration: Duration, outcome: Outcome, error: String? = nil, logs: [String] = []
    ) {
        shared = SharedFields(
            Fields(
                id: id, trigger: trigger, function: function, eventId: eventId, attempt: attempt, userId: userId,
                start: start, duration: duration, outcome: outcome, error: error, logs: logs))
    }

    public static func == (lhs: InvocationRecord, rhs: InvocationRecord) -> Bool {
        lhs.shared.sharesBox(with: rhs.shared) || lhs.shared.fields == rhs.shared.fields
    }
}

extension InvocationRecord {
    /// The stored form: `{_id, trigger?, function, eventId?, attempt, userId, start, durationMs, outcome,
    /// error?, logs}` (`start` a date, `durationMs` a double).
    package var document: BSONDocument {
        // Sized once: every run builds one, on the thread that served it.
        var document = BSONDocument()
        document.reserveCapacity(11)
        document.append("_id", .objectId(id))
        if let trigger { document.append("trigger", .string(trigger)) }
        document.append("function", .string(function))
        if let eventId { document.append("eventId", .string(eventId)) }
        document.append("attempt", .int64(Int64(attempt)))
        document.append("userId", .string(userId))
        document.append("start", .datetime(BSONDate(start)))
        document.append("durationMs", .double(duration.milliseconds))
        document.append("outcome", .string(outcome.rawValue))
        if let error { document.append("error", .string(error)) }
        document.append("logs", .array(logs.isEmpty ? [] : logs.map { .string($0) }))
        return document
    }

    /// `document`'s bytes, written directly: how every run's record goes to the store.
    package var encoded: EncodedDocument {
        EncodedDocument(id: id, capacity: 160 + function.utf8.count + userId.utf8.count) { writer in
            if let trigger { writer.append("trigger", trigger) }
            writer.append("function", function)
            if let eventId { writer.append("eventId", eventId) }
            writer.append("attempt", Int64(attempt))
            writer.append("userId", userId)
            writer.append("start", BSONDate(start))
            writer.append("durationMs", duration.milliseconds)
            writer.append("outcome", outcome.rawValue)
            if let error { writer.append("error", error) }
            writer.append("logs", strings: logs)
        }
    }

    /// Reads a record written by `document`; errors name the missing or mistyped field.
    package init(document: BSONDocument) throws(InvocationLogError) {
        func field<T>(_ key: String, _ read: (BSON) -> T?) throws(InvocationLogError) -> T {
            guard let value = document[key], let typed = read(value) else {
                throw InvocationLogError(
                    "invocation record \(document["_id"].map { "\($0)" } ?? "") has no valid '\(key)'")
            }
            return typed
        }
        func optional(_ key: String) throws(InvocationLogError) -> String? {
            document[key] == nil ? nil : try field(key, \.stringValue)
        }
        self.init(
            id: try field("_id", \.objectIdValue),
            trigger: try optional("trigger"),
            function: try field("function", \.stringValue),
            eventId: try optional("eventId"),
            attempt: Int(try field("attempt", \.int64Value)),
            userId: try field("userId", \.stringValue),
            start: try field("start") { if case .datetime(let date) = $0 { date.date } else { nil } },
            duration: .milliseconds(
                try field("durationMs") { $0.doubleValue.flatMap { (0..<1e15).contains($0) ? $0 : nil } }),
            outcome: try field("outcome") { $0.stringValue.flatMap(Outcome.init(rawValue:)) },
            error: try optional("error"),
            logs: try field("logs") { value in
                value.arrayValue.flatMap { items in
                    let lines = items.compactMap(\.stringValue)
                    return lines.count == items.count ? lines : nil
                }
            })
    }
}

/// A stored invocation record that cannot be read back.
package struct InvocationLogError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    init(_ message: String) { self.message = message }
    package var description: String { message }
}
