/// An HTTP client for functions (`context.services.http`) and the push clients: libcurl underneath, every
/// request driven by one dedicated thread (never Swift's cooperative pool), connections kept alive and reused.
///
/// ```swift
/// let client = try HTTPClient()
/// let response = try await client.post(url: "https://example.com/hook", body: ["book": "Dune"])
/// if response.isSuccess, let reply = response.json { … }
/// ```
public final class HTTPClient: Sendable {
    private let loop: CurlTransferLoop

    public init() throws(HTTPClientError) {
        loop = try CurlTransferLoop()
    }

    deinit { loop.stop() }

    /// Sends the request and waits for the whole response. Cancelling the task aborts the exchange.
    public func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        let transfer = try CurlTransfer(id: loop.nextId(), request: request)
        let loop = self.loop
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.start(continuation)
                loop.add(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
        return try result.get()
    }
}

extension HTTPClient {
    public func get(
        url: String, headers: HTTPHeaders = [:], timeout: Duration = .seconds(30), followRedirects: Bool = false
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(
            HTTPRequest(method: .get, url: url, headers: headers, timeout: timeout, followRedirects: followRedirects))
    }

    public func post(
        url: String, body: [UInt8], headers: HTTPHeaders = [:], timeout: Duration = .seconds(30)
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(HTTPRequest(method: .post, url: url, headers: headers, body: body, timeout: timeout))
    }

    public func put(
        url: String, body: [UInt8], headers: HTTPHeaders = [:], timeout: Duration = .seconds(30)
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(HTTPRequest(method: .put, url: url, headers: headers, body: body, timeout: timeout))
    }

    public func delete(
        url: String, headers: HTTPHeaders = [:], timeout: Duration = .seconds(30)
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(HTTPRequest(method: .delete, url: url, headers: headers, timeout: timeout))
    }
}
