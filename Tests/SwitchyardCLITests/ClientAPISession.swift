import Messaging

/// A user's calls to a served app's client API, as the Realm SDKs send them.
struct ClientAPISession: Sendable {
    let http: HTTPClient
    /// `http://HOST:PORT/api/client/v2.0/app/APP`.
    let base: String
    /// The user's access token.
    let token: String

    /// `functions/call` with `body`, `{"name", "arguments", "service"?}`.
    func call(_ body: String) async throws -> HTTPResponse {
        try await http.post(
            url: "\(base)/functions/call", body: Array(body.utf8),
            headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"])
    }

    /// A `mongodb-atlas` service action on the `product` database, as the SDKs' MongoCollection sends it: `fields`
    /// are its argument's fields after `database` (`"collection":"book","query":{…}`).
    func mongo(_ action: String, _ fields: String) async throws -> HTTPResponse {
        try await call(
            #"{"name":"\#(action)","service":"mongodb-atlas","arguments":[{"database":"product",\#(fields)}]}"#)
    }
}
