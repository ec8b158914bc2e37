import BSON

/// Sends push messages through the FCM HTTP v1 API: one request per message (FCM has no batch endpoint any
/// more), all of them multiplexed as HTTP/2 streams over a kept-alive connection of one long-lived curl multi
/// handle, at most `Configuration.http.maximumConcurrentTransfers` at once, the rest queued.
///
/// Every send is retried by `Configuration.retry` when FCM answers 429, 500 or 503 (after `Retry-After` when it
/// says one) or the connection fails; never after FCM accepted it, and never for 400, 401, 403 or 404. Errors are
/// `PushError`s with FCM's own code (`UNREGISTERED`, `INVALID_ARGUMENT`, `SENDER_ID_MISMATCH`, `QUOTA_EXCEEDED`,
/// `UNAVAILABLE`, `INTERNAL`, `THIRD_PARTY_AUTH_ERROR`) or `TRANSPORT`.
///
/// ```swift
/// let client = try FCMClient(serviceAccount: ServiceAccount(contentsOfFile: "service-account.json"))
/// let response = try await client.sendEachForMulticast(MulticastMessage(tokens: tokens, notification: note))
/// try await removeTokens(response.tokensToDelete)
/// ```
package final class FCMClient: PushMessaging {
    package struct Configuration: Sendable {
        package var endpoints: FCMEndpoints
        package var retry: RetryPolicy
        /// Concurrency, connections and trusted certificates of the HTTP client the FCM client makes.
        package var http: HTTPClient.Configuration
        /// `.http2` (HTTP/2 over TLS) for Google; `.http2PriorKnowledge` for a cleartext HTTP/2 test server.
        package var httpVersion: HTTPVersion
        /// One attempt's limit.
        package var requestTimeout: Duration
        /// Headers a send adds to its request (every attempt), made in the sending task: `switchyard serve`'s
        /// client of its own FCM emulator names the function run whose transaction records the send.
        package var sendHeaders: @Sendable () -> HTTPHeaders

        package init(
            endpoints: FCMEndpoints = .google, retry: RetryPolicy = RetryPolicy(),
            http: HTTPClient.Configuration = HTTPClient.Configuration(maximumConcurrentTransfers: 100),
            httpVersion: HTTPVersion = .http2, requestTimeout: Duration = .seconds(30),
            sendHeaders: @escaping @Sendable () -> HTTPHeaders = { [:] }
        ) {
            self.endpoints = endpoints
            self.retry = retry
            self.http = http
            self.httpVersion = httpVersion
            self.requestTimeout = requestTimeout
            self.sendHeaders = sendHeaders
        }
    }

    /// FCM's limit on the messages of one `sendEach`.
    package static let maximumBatchSize = 500
    /// The Instance ID service's limit on the tokens of one subscription request; larger lists are split.
    package static let maximumTopicBatchSize = 1000

    package let projectId: String
    package let configuration: Configuration
    package let accessTokens: any AccessTokenProvider
    /// The HTTP client underneath (its `connectionsOpened` shows connection reuse).
    package let http: HTTPClient

    /// A client for the service account's project, with OAuth2 tokens from its key.
    package convenience init(
        serviceAccount: ServiceAccount, configuration: Configuration = Configuration()
    ) throws(PushError) {
        let http = try Self.makeHTTPClient(configuration)
        let tokens = ServiceAccountTokenProvider(
            account: serviceAccount, http: http, tokenURI: configuration.endpoints.tokenURI, retry: configuration.retry,
            httpVersion: configuration.httpVersion)
        try self.init(
            projectId: serviceAccount.projectId, accessTokens: tokens, configuration: configuration, http: http)
    }

    /// A client with tokens from `accessTokens` (`StaticAccessToken` for the emulator).
    /// - Parameter http: shares an HTTP client (and its connections) with `accessTokens`; nil makes one.
    package init(
        projectId: String, accessTokens: any AccessTokenProvider, configuration: Configuration = Configuration(),
        http: HTTPClient? = nil
    ) throws(PushError) {
        guard !projectId.isEmpty, projectId.utf8.allSatisfy({ TopicName.isAllowed($0) && $0 != UInt8(ascii: "%") })
        else {
            throw PushError(code: .invalidArgument, message: "\"\(projectId)\" is not a Firebase project id")
        }
        self.projectId = projectId
        self.configuration = configuration
        self.accessTokens = accessTokens
        if let http {
            self.http = http
        } else {
            self.http = try Self.makeHTTPClient(configuration)
        }
    }

    private static func makeHTTPClient(_ configuration: Configuration) throws(PushError) -> HTTPClient {
        do {
            return try HTTPClient(configuration: configuration.http)
        } catch {
            throw PushError(code: .transport, message: "cannot start the HTTP client: \(error)")
        }
    }

    // MARK: Sending

    /// Validates and sends one message; returns its name (`projects/p/messages/123`). With `validateOnly`, FCM
    /// checks it without delivering.
    package func send(_ message: PushMessage, validateOnly: Bool = false) async throws(PushError) -> String {
        try message.validate()
        return try await deliver(message, validateOnly: validateOnly).get()
    }

    /// Sends up to 500 messages at once and reports each one's result, in order. A message that fails
    /// validation is reported failed (`INVALID_ARGUMENT`) without being sent; the others go.
    package func sendEach(_ messages: [PushMessage], validateOnly: Bool = false) async throws(PushError)
        -> BatchResponse
    {
        guard !messages.isEmpty, messages.count <= Self.maximumBatchSize else {
            throw PushError(
                code: .invalidArgument,
                message: "sendEach takes 1 to \(Self.maximumBatchSize) messages, not \(messages.count)")
        }
        return await deliverAll(messages, validateOnly: validateOnly)
    }

    /// Sends the message to each of its tokens (at most 500) and reports each token's result, in order.
    package func sendEachForMulticast(
        _ message: MulticastMessage, validateOnly: Bool = false
    ) async throws(PushError) -> BatchResponse {
        try message.validate()
        return await deliverAll(message.messages, validateOnly: validateOnly)
    }

    private func deliverAll(_ messages: [PushMessage], validateOnly: Bool) async -> BatchResponse {
        let outcomes = await withTaskGroup(of: (Int, Result<String, PushError>).self) { group in
            for (index, message) in messages.enumerated() {
                group.addTask {
                    if let invalid = Self.validationError(message) { return (index, .failure(invalid)) }
                    return (index, await self.deliver(message, validateOnly: validateOnly))
                }
            }
            var outcomes = [Result<String, PushError>?](repeating: nil, count: messages.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
        return BatchResponse(
            results: zip(messages, outcomes).map { message, outcome -> BatchResponse.Result in
                switch outcome {
                case .success(let name)?: .init(target: message.target, messageName: name)
                case .failure(let error)?: .init(target: message.target, error: error)
                case nil:
                    .init(target: message.target, error: PushError(code: .internal, message: "the send did not finish"))
                }
            })
    }

    private static func validationError(_ message: PushMessage) -> PushError? {
        do {
            try message.validate()
            return nil
        } catch {
            return error
        }
    }

    private func deliver(_ message: PushMessage, validateOnly: Bool) async -> Result<String, PushError> {
        let place = "FCM send to project \(projectId)"
        let body = message.sendRequestJSON(validateOnly: validateOnly)
        return await exchange(
            url: configuration.endpoints.sendURL(project: projectId), body: body, place: place,
            headers: configuration.sendHeaders()
        ) { response in
            // Accepted means sent: an unreadable name is reported as empty rather than retried into a duplicate.
            (try? ExtendedJSON.parseValue(response.body))?.documentValue?["name"]?.stringValue ?? ""
        }
    }

    // MARK: Topics

    /// Subscribes registration tokens to `topic` (with or without `/topics/`), 1,000 per request; reports each
    /// token's result in order.
    package func subscribeToTopic(_ tokens: [String], topic: String) async throws(PushError) -> TopicManagementResponse
    {
        try await manageTopic(.subscribe, tokens: tokens, topic: topic)
    }

    /// Unsubscribes registration tokens from `topic`, 1,000 per request; reports each token's result in order.
    package func unsubscribeFromTopic(
        _ tokens: [String], topic: String
    ) async throws(PushError) -> TopicManagementResponse {
        try await manageTopic(.unsubscribe, tokens: tokens, topic: topic)
    }

    private func manageTopic(
        _ operation: TopicOperation, tokens: [String], topic: String
    ) async throws(PushError) -> TopicManagementResponse {
        let name = topic.hasPrefix("/topics/") ? String(topic.dropFirst("/topics/".count)) : topic
        guard TopicName.isValid(name) else {
            throw PushMessage.invalid("topic", "\"\(topic)\" is not a topic name ([a-zA-Z0-9-_.~%]+)")
        }
        guard !tokens.isEmpty else { throw PushMessage.invalid("tokens", "no registration tokens were given") }
        if let empty = tokens.firstIndex(of: "") {
            throw PushMessage.invalid("tokens[\(empty)]", "the registration token is empty")
        }
        let place = "Instance ID \(operation.rawValue) for topic \(name)"
        var results: [TopicManagementResponse.Result] = []
        for start in stride(from: 0, to: tokens.count, by: Self.maximumTopicBatchSize) {
            let batch = Array(tokens[start..<min(start + Self.maximumTopicBatchSize, tokens.count)])
            let body: BSONDocument = [
                "to": .string("/topics/\(name)"), "registration_tokens": .array(batch.map(BSON.string)),
            ]
            let answers = try await exchange(
                url: configuration.endpoints.topicURL(operation), body: body.extendedJSONBytes(mode: .relaxed),
                place: place, headers: ["access_token_auth": "true"]
            ) { response in
                (try? ExtendedJSON.parseValue(response.body))?.documentValue?["results"]?.arrayValue ?? []
            }.get()
            for (index, token) in batch.enumerated() {
                let answer = index < answers.count ? answers[index].documentValue : nil
                let error =
                    answer == nil ? "the service gave no result for this token" : answer?["error"]?.stringValue
                results.append(.init(token: token, error: error))
            }
        }
        return TopicManagementResponse(results: results)
    }

    // MARK: The exchange

    /// POSTs `body` with a bearer token, retrying as the policy says; `read` turns the accepted answer into
    /// the result.
    private func exchange<Value: Sendable>(
        url: String, body: [UInt8], place: String, headers extra: HTTPHeaders = [:],
        read: (HTTPResponse) -> Value
    ) async -> Result<Value, PushError> {
        await configuration.retry.run { _ in
            let token: String
            switch await bearerToken() {
            case .success(let value): token = value
            case .failure(let error): return .failure(error)
            }
            var headers: HTTPHeaders = [
                "Authorization": "Bearer \(token)", "Content-Type": "application/json",
                "X-GOOG-API-FORMAT-VERSION": "2", "X-Firebase-Client": "switchyard",
            ]
            for (name, value) in extra { headers[name] = value }
            let request = HTTPRequest(
                method: .post, url: url, headers: headers, body: body, timeout: configuration.requestTimeout,
                httpVersion: configuration.httpVersion)
            let response: HTTPResponse
            switch await http.exchange(request) {
            case .success(let answer): response = answer
            case .failure(let error): return .transport(error, place)
            }
            if response.isSuccess { return .success(read(response)) }
            let error = FCMErrorResponse.pushError(status: response.status, body: response.body, place: place)
            if response.status == 401 { await accessTokens.invalidate(token) }
            guard FCMErrorResponse.isRetryable(status: response.status) else { return .failure(error) }
            return .retry(error, retryAfter: RetryAfter.delay(response.headers["Retry-After"]))
        }
    }

    private func bearerToken() async -> Result<String, PushError> {
        do {
            return .success(try await accessTokens.accessToken())
        } catch {
            return .failure(error)
        }
    }
}
