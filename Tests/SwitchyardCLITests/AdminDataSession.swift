import BSON
import Foundation
import Messaging

/// The example app's data as its back office reaches it: through the admin API's document endpoints, as the
/// system. The app's data access rules let no client write a book or read the notification queue.
struct AdminDataSession: Sendable {
    let http: HTTPClient
    /// `http://HOST:PORT/admin/v1`.
    let base: String
    /// The admin token `serve` wrote into its data directory.
    let token: String

    /// A session for the server at `root` (`http://HOST:PORT`) whose data directory is `dataDirectory`, once the
    /// server takes the token in the directory: a server answers its client API a moment before it writes its token,
    /// and a restarted one's directory holds the previous run's until then (a deadline of a minute, not a measure).
    init(http: HTTPClient, root: String, dataDirectory: String) async throws {
        self.http = http
        base = "\(root)/admin/v1"
        let deadline = Date().addingTimeInterval(60)
        while true {
            let token = (try? String(contentsOfFile: "\(dataDirectory)/admin.token", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if let token, !token.isEmpty,
                let answer = try? await http.get(url: "\(base)/app", headers: ["Authorization": "Bearer \(token)"]),
                answer.status == 200
            {
                self.token = token
                return
            }
            guard Date() < deadline else { throw TokenNotTaken(dataDirectory: dataDirectory) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    struct TokenNotTaken: Error, CustomStringConvertible {
        let dataDirectory: String
        var description: String { "the server took no token from \(dataDirectory)/admin.token within a minute" }
    }

    /// Inserts `document` (Extended JSON) into `product.<collection>`.
    func insert(_ collection: String, _ document: String) async throws -> HTTPResponse {
        try await post("/databases/product/collections/\(collection)/documents", document)
    }

    /// `{filter, update}` (Extended JSON) applied to one document of `product.<collection>`.
    func update(_ collection: String, filter: String, update: String) async throws -> HTTPResponse {
        try await post(
            "/databases/product/collections/\(collection)/update", #"{"filter":\#(filter),"update":\#(update)}"#)
    }

    /// Deletes the first document of `product.<collection>` matching `filter` (Extended JSON).
    func delete(_ collection: String, filter: String) async throws -> HTTPResponse {
        try await post("/databases/product/collections/\(collection)/delete", #"{"filter":\#(filter)}"#)
    }

    /// The first document of `product.<collection>` matching `filter` (Extended JSON), or nil.
    func findOne(_ collection: String, filter: String) async throws -> BSONDocument? {
        let query = filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let response = try await http.get(
            url: "\(base)/databases/product/collections/\(collection)/documents?limit=1&mode=canonical&filter=\(query)",
            headers: ["Authorization": "Bearer \(token)"])
        return try ExtendedJSON.parseDocument(response.text)["documents"]?.arrayValue?.first?.documentValue
    }

    private func post(_ path: String, _ body: String) async throws -> HTTPResponse {
        try await http.post(
            url: base + path, body: Array(body.utf8),
            headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"])
    }
}
