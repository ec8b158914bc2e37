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
        let client = try HTTPClient()
        let response = try await client.get(
            url: url + "/triggers", headers: ["Authorization": "Bearer \(token)"], timeout: .seconds(10))
        guard response.status == 200 else {
            throw Failure(description: "\(url)/triggers answered \(response.status)")
        }
        let body = try ExtendedJSON.parseDocument(response.body)
        guard case .array(let items)? = body["triggers"] else {
            throw Failure(description: "\(url)/triggers answered without a 'triggers' list")
        }
        return try items.map { item in
            guard case .document(let document) = item, let status = TriggerStatus(adminDocument: document) else {
                throw Failure(description: "\(url)/triggers answered a trigger this version cannot read")
            }
            return status
        }
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
        self.init(
            name: name, type: type, function: function, state: state, lastEventId: document["lastEventId"]?.stringValue,
            lastEventTime: date("lastEventTime"), lastProcessedAt: date("lastProcessedAt"),
            pendingLogEntries: document["pendingLogEntries"].flatMap(\.int64Value).map { Int($0) },
            processed: count("processed"), failedAttempts: count("failedAttempts"), deadLettered: count("deadLettered"),
            inFlight: count("inFlight"), suspension: suspension,
            isInMemoryOnly: document["inMemoryOnly"]?.boolValue ?? false, warnings: warnings)
    }
}
