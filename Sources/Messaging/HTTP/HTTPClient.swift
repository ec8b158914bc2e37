import Synchronization

/// An HTTP client for functions (`context.services.http`) and the push clients: libcurl underneath, every
/// request driven by one dedicated thread (never Swift's cooperative pool), connections kept alive and reused.
///
/// ```swift
/// let client = try HTTPClient()
/// let response = try await client.post(url: "https://example.com/hook", body: ["book": "Dune"])
/// if response.isSuccess, let reply = response.json { … }
/// ```
package final class HTTPClient: Sendable {
    /// How many requests run at once and over how many connections; what TLS trusts.
    package struct Configuration: Sendable, Equatable {
        /// Requests in flight at once; more wait in a queue (cheaply: no curl handle until they start).
        package var maximumConcurrentTransfers: Int
        /// HTTP/2 streams per connection before curl opens another connection to the same origin.
        package var maximumStreamsPerConnection: Int
        /// Connections to one host at most (0: no limit).
        package var maximumConnectionsPerHost: Int
        /// A PEM file of certificates to trust instead of the system's (a test server's self-signed one).
        package var trustedCertificatesFile: String?

        package init(
            maximumConcurrentTransfers: Int = 128, maximumStreamsPerConnection: Int = 100,
            maximumConnectionsPerHost: Int = 0, trustedCertificatesFile: String? = nil
        ) {
            self.maximumConcurrentTransfers = maximumConcurrentTransfers
            self.maximumStreamsPerConnection = maximumStreamsPerConnection
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.trustedCertificatesFile = trustedCertificatesFile
        }
    }

    package let configuration: Configuration
    /// Made by the first request: a client that never sends (a served app whose functions make no HTTP calls)
    /// keeps no thread and leaves curl and OpenSSL uninitialised, a few megabytes of an idle server.
    private let loop = Mutex<CurlTransferLoop?>(nil)

    /// Makes the client; curl is set up by the first request, whose error says so if that fails.
    package init(configuration: Configuration = Configuration()) throws(HTTPClientError) {
        self.configuration = configuration
    }

    deinit { loop.withLock { $0?.stop() } }

    /// Connections opened so far; requests that reused a kept-alive connection or joined an HTTP/2 one add none.
    package var connectionsOpened: Int { loop.withLock { $0?.connectionsOpened.load(ordering: .relaxed) ?? 0 } }

    /// Sends the request and waits for the whole response. Cancelling the task aborts the exchange.
    package func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        let loop = try startedLoop()
        let id = loop.nextId()
        // The transfer exists only once the continuation does; a cancellation before that is remembered.
        let state = Mutex(SendState.pending)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let transfer = CurlTransfer(id: id, request: request, continuation: continuation)
                let wasCancelled = state.withLock { state -> Bool in
                    defer { state = .started(transfer) }
                    if case .cancelled = state { return true }
                    return false
                }
                if wasCancelled { transfer.isCancelled.store(true, ordering: .releasing) }
                loop.add(transfer)
            }
        } onCancel: {
            let transfer = state.withLock { state -> CurlTransfer? in
                if case .started(let transfer) = state { return transfer }
                state = .cancelled
                return nil
            }
            if let transfer { loop.cancel(transfer) }
        }
        return try result.get()
    }

    private func startedLoop() throws(HTTPClientError) -> CurlTransferLoop {
        try loop.withLock { loop throws(HTTPClientError) -> CurlTransferLoop in
            if let loop { return loop }
            let started = try CurlTransferLoop(configuration: configuration)
            loop = started
            return started
        }
    }
}

/// Where one `send` is: its transfer is made inside the continuation, after a cancellation handler may have run.
private enum SendState {
    case pending
    case cancelled
    case started(CurlTransfer)
}

extension HTTPClient {
    package func get(
        url: String, headers: HTTPHeaders = [:], timeout: Duration = .seconds(30), followRedirects: Bool = false
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(
            HTTPRequest(method: .get, url: url, headers: headers, timeout: timeout, followRedirects: followRedirects))
    }

    package func post(
        url: String, body: [UInt8], headers: HTTPHeaders = [:], timeout: Duration = .seconds(30)
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(HTTPRequest(method: .post, url: url, headers: headers, body: body, timeout: timeout))
    }

    package func put(
        url: String, body: [UInt8], headers: HTTPHeaders = [:], timeout: Duration = .seconds(30)
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(HTTPRequest(method: .put, url: url, headers: headers, body: body, timeout: timeout))
    }

    package func delete(
        url: String, headers: HTTPHeaders = [:], timeout: Duration = .seconds(30)
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(HTTPRequest(method: .delete, url: url, headers: headers, timeout: timeout))
    }
}
