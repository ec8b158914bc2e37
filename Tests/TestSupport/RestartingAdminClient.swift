import BSON
import Foundation
import Messaging

/// The admin API of a `switchyard serve` that restarts under its client (`serve --watch` after a rebuild): the
/// token, new at every start, is re-read from `<data-dir>/admin.token` for each request, and while the server
/// is down or starting an answer is simply missing.
public struct RestartingAdminClient: Sendable {
    /// `http://host:port/admin/v1`.
    public let base: String
    public let dataDirectory: String
    private let client: HTTPClient

    public init(base: String, dataDirectory: String) throws {
        self.base = base
        self.dataDirectory = dataDirectory
        client = try HTTPClient()
    }

    private var headers: HTTPHeaders {
        let token = (try? String(contentsOfFile: "\(dataDirectory)/admin.token", encoding: .utf8)) ?? ""
        return ["Authorization": "Bearer \(token.trimmingCharacters(in: .whitespacesAndNewlines))"]
    }

    /// The answer to `GET base+path` as a document; nil unless the server answered 200.
    public func get(_ path: String) async -> BSONDocument? {
        guard let response = try? await client.get(url: base + path, headers: headers), response.status == 200 else {
            return nil
        }
        return try? ExtendedJSON.parseDocument(response.body)
    }

    /// The first document of `database.collection` (canonical Extended JSON, so numbers keep their types).
    public func firstDocument(_ database: String, _ collection: String) async -> BSONDocument? {
        await get("/databases/\(database)/collections/\(collection)/documents?mode=canonical")?["documents"]?
            .arrayValue?.first?.documentValue
    }

    /// Inserts `document` (Extended JSON); true once it is committed: inserted now, or by an earlier try whose
    /// answer was lost when the server stopped (the retry then meets the duplicate key).
    public func insert(_ document: String, into database: String, _ collection: String) async -> Bool {
        guard
            let response = try? await client.post(
                url: base + "/databases/\(database)/collections/\(collection)/documents", body: Array(document.utf8),
                headers: headers)
        else { return false }
        return response.status == 201 || String(decoding: response.body, as: UTF8.self).contains("E11000")
    }
}
