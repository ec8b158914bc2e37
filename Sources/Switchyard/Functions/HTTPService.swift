import BSON
import Messaging

/// `context.services.http`: outbound HTTP requests on the app's HTTP client. A body is sent as relaxed
/// Extended JSON (plain JSON for JSON's types) with `Content-Type: application/json` unless the headers
/// say otherwise; `response.json` reads a JSON answer back as BSON.
public struct HTTPService: Sendable {
    let client: HTTPClient

    package init(client: HTTPClient) {
        self.client = client
    }

    public func get(_ url: String, headers: HTTPHeaders = [:], timeout: Duration = .seconds(30)) async throws
        -> HTTPResponse
    {
        try await send(.get, url, body: nil, headers: headers, timeout: timeout)
    }

    public func post(_ url: String, body: BSON? = nil, headers: HTTPHeaders = [:], timeout: Duration = .seconds(30))
        async throws -> HTTPResponse
    {
        try await send(.post, url, body: body, headers: headers, timeout: timeout)
    }

    public func put(_ url: String, body: BSON? = nil, headers: HTTPHeaders = [:], timeout: Duration = .seconds(30))
        async throws -> HTTPResponse
    {
        try await send(.put, url, body: body, headers: headers, timeout: timeout)
    }

    public func delete(
        _ url: String, body: BSON? = nil, headers: HTTPHeaders = [:], timeout: Duration = .seconds(30)
    ) async throws -> HTTPResponse {
        try await send(.delete, url, body: body, headers: headers, timeout: timeout)
    }

    public func send(
        _ method: HTTPRequest.Method, _ url: String, body: BSON?, headers: HTTPHeaders, timeout: Duration
    ) async throws -> HTTPResponse {
        var headers = headers
        var bytes: [UInt8] = []
        if let body {
            bytes = body.extendedJSONBytes(mode: .relaxed)
            if headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        }
        return try await client.send(
            HTTPRequest(method: method, url: url, headers: headers, body: bytes, timeout: timeout))
    }
}
