import BSON

extension HTTPClient {
    /// POSTs `body` as relaxed Extended JSON (`Content-Type: application/json`); read the reply with
    /// `HTTPResponse.json`.
    package func post(
        url: String, body: BSONDocument, headers: HTTPHeaders = [:], timeout: Duration = .seconds(30)
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(Self.jsonRequest(.post, url: url, body: body, headers: headers, timeout: timeout))
    }

    /// PUTs `body` as relaxed Extended JSON.
    package func put(
        url: String, body: BSONDocument, headers: HTTPHeaders = [:], timeout: Duration = .seconds(30)
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(Self.jsonRequest(.put, url: url, body: body, headers: headers, timeout: timeout))
    }

    /// PATCHes `body` as relaxed Extended JSON.
    package func patch(
        url: String, body: BSONDocument, headers: HTTPHeaders = [:], timeout: Duration = .seconds(30)
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(Self.jsonRequest(.patch, url: url, body: body, headers: headers, timeout: timeout))
    }

    static func jsonRequest(
        _ method: HTTPRequest.Method, url: String, body: BSONDocument, headers: HTTPHeaders, timeout: Duration
    ) -> HTTPRequest {
        var headers = headers
        if headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        if headers["Accept"] == nil { headers["Accept"] = "application/json" }
        return HTTPRequest(
            method: method, url: url, headers: headers, body: body.extendedJSONBytes(mode: .relaxed), timeout: timeout)
    }
}
