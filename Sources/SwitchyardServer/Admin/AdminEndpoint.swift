import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard

/// Where a running `switchyard serve` answers its admin API, for the commands that read the same data directory
/// while it runs (`switchyard triggers`): the server writes `<data-dir>/admin.url` beside `admin.token` once it
/// listens, and a command asks it when the data directory's lock is held, since only the running server knows
/// which triggers run and what they are doing.
package struct AdminEndpoint: Sendable {
    package static let fileName = "admin.url"

    /// The admin API's base URL (`http://127.0.0.1:9090/admin/v1`).
    package let url: String
    let token: String

    /// Why the endpoint could not be written or did not answer as the admin API does.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Writes `url` to `<directory>/admin.url`.
    static func write(url: String, toDirectory directory: String) throws(Failure) {
        let path = "\(directory)/\(fileName)"
        do {
            try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw Failure(description: "cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// The running server of `dataDirectory`: nil when no process holds its lock or the process left no
    /// endpoint (`switchyard run` serves no admin API).
    package static func running(dataDirectory: String) -> AdminEndpoint? {
        guard DataDirectoryLock.isHeld(dataDirectory),
            let url = try? String(contentsOfFile: "\(dataDirectory)/\(fileName)", encoding: .utf8),
            let token = try? String(contentsOfFile: "\(dataDirectory)/\(AdminToken.fileName)", encoding: .utf8)
        else { return nil }
        return AdminEndpoint(
            url: url.trimmingCharacters(in: .whitespacesAndNewlines),
            token: token.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Every trigger's status as the server reports it (`GET /admin/v1/triggers`).
    package func triggerStatuses() async throws -> [TriggerStatus] {
        try await list("/triggers", key: "triggers", item: "trigger", timeout: .seconds(10)) {
            TriggerStatus(adminDocument: $0)
        }
    }
}

extension AdminEndpoint {
    /// The dead letters as the server reports them (`GET /admin/v1/deadLetters`), oldest first; all triggers'
    /// when `trigger` is nil.
    package func deadLetters(trigger: String?) async throws -> [DeadLetter] {
        var query = ""
        if let trigger {
            query = "?trigger=" + (trigger.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? trigger)
        }
        return try await list("/deadLetters" + query, key: "deadLetters", item: "dead letter") {
            DeadLetter(adminDocument: $0)
        }
    }

    /// Has the server deliver a dead letter's event again (`POST /admin/v1/deadLetters/{id}/redeliver`).
    /// - Throws: `Refusal` with the server's message when it answered with an error (a failed redelivery, an
    ///   unknown id).
    package func redeliver(_ id: ObjectId) async throws {
        let path = "/deadLetters/\(id.hex)/redeliver"
        _ = try await answer(try await HTTPClient().post(url: url + path, body: [], headers: headers))
    }

    /// Resumes a suspended trigger on the server (`POST /admin/v1/triggers/{name}/resume`), from its resume token or
    /// skipping what happened while it was suspended; returns its status.
    /// - Throws: `Refusal` with the server's message (an unknown trigger, one not suspended).
    package func resume(trigger name: String, fromToken: Bool) async throws -> TriggerStatus {
        let path = "/triggers/\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name)/resume"
        let body = try await answer(
            try await HTTPClient().post(
                url: url + path, body: Array(#"{"fromToken": \#(fromToken)}"#.utf8), headers: headers))
        guard let status = TriggerStatus(adminDocument: body) else {
            throw Failure(description: "\(url)\(path) answered a status this version cannot read")
        }
        return status
    }

    /// An error the admin API answered: its status, `error_code` and message.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        package var status: Int
        package var code: String
        package var message: String
        package var description: String { message }
    }

    private var headers: HTTPHeaders { ["Authorization": "Bearer \(token)"] }

    /// The list `key` that `GET path` answers, each of its documents read by `read` (nil: one this version cannot
    /// read, named `item` in the error).
    private func list<Item>(
        _ path: String, key: String, item: String, timeout: Duration = .seconds(30),
        _ read: (BSONDocument) -> Item?
    ) async throws -> [Item] {
        let body = try await answer(try await HTTPClient().get(url: url + path, headers: headers, timeout: timeout))
        guard case .array(let items)? = body[key] else {
            throw Failure(description: "\(url)\(path) answered without a '\(key)' list")
        }
        return try items.map { element in
            guard case .document(let document) = element, let read = read(document) else {
                throw Failure(description: "\(url)\(path) answered a \(item) this version cannot read")
            }
            return read
        }
    }

    /// The answer's body; a `Refusal` for an error answer.
    private func answer(_ response: HTTPResponse) async throws -> BSONDocument {
        let body = try? ExtendedJSON.parseDocument(response.body)
        guard response.status == 200, let body else {
            throw Refusal(
                status: response.status, code: body?["error_code"]?.stringValue ?? "",
                message: body?["error"]?.stringValue ?? "the admin API answered \(response.status)")
        }
        return body
    }
}

extension DeadLetter {
    /// The letter `adminDocument` describes; nil when a field is missing or of the wrong type.
    init?(adminDocument document: BSONDocument) {
        guard case .document(let event)? = document["event"] else { return nil }
        var stored = document
        // Stored letters name a change event's operation type beside it.
        if let operationType = event["operationType"] { stored["operationType"] = operationType }
        self.init(document: stored)
    }
}

extension TriggerStatus {
    /// The status `adminDocument` describes; nil when a field is missing or of the wrong type.
    init?(adminDocument document: BSONDocument) {
        guard let name = document["name"]?.stringValue, let type = document["type"]?.stringValue,
            let function = document["function"]?.stringValue,
            let state = document["state"]?.stringValue.flatMap(State.init(rawValue:))
        else { return nil }
        func count(_ key: String) -> Int { document[key].flatMap(\.int64Value).map { Int($0) } ?? 0 }
        func date(_ key: String) -> Date? {
            guard case .datetime(let date)? = document[key] else { return nil }
            return date.date
        }
        var suspension: TriggerSuspension?
        if case .document(let suspended)? = document["suspension"], let reason = suspended["reason"]?.stringValue,
            case .datetime(let time)? = suspended["time"]
        {
            suspension = TriggerSuspension(
                reason: reason,
                code: suspended["code"].flatMap(\.int64Value).map { StoreError.Code(rawValue: Int($0)) },
                failedEventId: suspended["failedEventId"]?.stringValue, time: time.date)
        }
        var warnings: [String] = []
        if case .array(let items)? = document["warnings"] { warnings = items.compactMap(\.stringValue) }
        let limit = count("maxConcurrency")
        let ordering: DeliveryOrder? =
            switch document["ordering"]?.stringValue {
            case "ordered": .ordered
            case "unordered": .unordered(maxConcurrency: limit)
            case DeliveryOrder.byDocumentKeyName: .byDocumentKey(maxConcurrency: limit)
            default: nil
            }
        var lastClusterTime: BSONTimestamp?
        if case .timestamp(let time)? = document["lastClusterTime"] { lastClusterTime = time }
        var resumeGap: TriggerResumeGap?
        if case .document(let gap)? = document["resumeGap"],
            let after = gap["after"]?.stringValue.flatMap({ ResumeToken(["_data": .string($0)]) }),
            let through = gap["through"]?.stringValue.flatMap({ ResumeToken(["_data": .string($0)]) }),
            case .datetime(let time)? = gap["time"]
        {
            resumeGap = TriggerResumeGap(after: after.sequence, through: through.sequence, time: time.date)
        }
        self.init(
            name: name, type: type, function: function, state: state, ordering: ordering,
            lastEventId: document["lastEventId"]?.stringValue, lastEventTime: date("lastEventTime"),
            lastProcessedAt: date("lastProcessedAt"), lastClusterTime: lastClusterTime, heartbeat: date("heartbeat"),
            lagSeconds: document["lagSeconds"]?.doubleValue, resumeGap: resumeGap,
            pendingLogEntries: document["pendingLogEntries"].flatMap(\.int64Value).map { Int($0) },
            processed: count("processed"), failedAttempts: count("failedAttempts"), deadLettered: count("deadLettered"),
            inFlight: count("inFlight"), suspension: suspension,
            isInMemoryOnly: document["inMemoryOnly"]?.boolValue ?? false, warnings: warnings,
            node: document["node"]?.stringValue)
    }
}
