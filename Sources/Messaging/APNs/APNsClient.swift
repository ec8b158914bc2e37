import BSON
import Foundation

/// Sends notifications straight to Apple Push Notification service over HTTP/2, authenticated by an ES256
/// provider token made from the team's `.p8` key and reused for most of an hour.
///
/// It speaks APNs natively (`send(_: APNsNotification)`, throwing `APNsError` with Apple's reason and, for
/// `Unregistered`, its timestamp) and is also a `PushMessaging`, so a function written against FCM's message
/// shape can deliver to iOS device tokens unchanged: the message's `apns` part, `notification` and `data` are
/// laid out as FCM lays them out for an iPhone. Topics and conditions exist only in FCM and are refused.
///
/// Retries are those of `FCMClient` (429, 500, 503 and transport failures, by `Configuration.retry`); an
/// `ExpiredProviderToken` answer makes a new provider token and sends once more.
package final class APNsClient: PushMessaging {
    package struct Configuration: Sendable {
        package static let productionURL = "https://api.push.apple.com"
        package static let sandboxURL = "https://api.sandbox.push.apple.com"

        /// `https://api.push.apple.com`, the sandbox's, or a test server's.
        package var baseURL: String
        /// `apns-topic` for notifications that name none (the app's bundle id).
        package var defaultTopic: String?
        package var retry: RetryPolicy
        package var http: HTTPClient.Configuration
        package var httpVersion: HTTPVersion
        /// How long one provider token is used; kept between 20 and 60 minutes.
        package var tokenLifetime: Duration
        package var requestTimeout: Duration
        /// The clock provider tokens are dated and aged by.
        package var now: @Sendable () -> Date

        package init(
            baseURL: String = Configuration.productionURL, defaultTopic: String? = nil,
            retry: RetryPolicy = RetryPolicy(),
            http: HTTPClient.Configuration = HTTPClient.Configuration(maximumConcurrentTransfers: 100),
            httpVersion: HTTPVersion = .http2, tokenLifetime: Duration = .seconds(50 * 60),
            requestTimeout: Duration = .seconds(30), now: @escaping @Sendable () -> Date = { Date() }
        ) {
            var base = baseURL
            while base.hasSuffix("/") { base.removeLast() }
            self.baseURL = base
            self.defaultTopic = defaultTopic
            self.retry = retry
            self.http = http
            self.httpVersion = httpVersion
            self.tokenLifetime = tokenLifetime
            self.requestTimeout = requestTimeout
            self.now = now
        }
    }

    package let configuration: Configuration
    package let http: HTTPClient
    private let providerToken: APNsProviderToken

    /// - Parameters:
    ///   - keyId: the key's id in the developer account (the `kid`).
    ///   - teamId: the developer team id (the `iss`).
    ///   - privateKey: the `.p8` file's text (a PEM P-256 private key).
    package init(
        keyId: String, teamId: String, privateKey: String, configuration: Configuration = Configuration()
    ) throws(PushError) {
        let key: SigningKey
        do {
            key = try SigningKey(pem: privateKey, source: "the APNs key \(keyId)")
        } catch {
            throw PushError(code: .thirdPartyAuthError, message: error.message)
        }
        guard key.algorithm == .es256 else {
            throw PushError(code: .thirdPartyAuthError, message: "the APNs key \(keyId) is not a P-256 key (.p8)")
        }
        self.configuration = configuration
        do {
            http = try HTTPClient(configuration: configuration.http)
        } catch {
            throw PushError(code: .transport, message: "cannot start the HTTP client: \(error)")
        }
        providerToken = APNsProviderToken(
            keyId: keyId, teamId: teamId, key: key, lifetime: configuration.tokenLifetime, now: configuration.now)
    }

    /// Reads the key from a `.p8` file.
    package convenience init(
        keyId: String, teamId: String, keyFile path: String, configuration: Configuration = Configuration()
    ) throws(PushError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PushError(code: .thirdPartyAuthError, message: "cannot read the APNs key file \(path)")
        }
        try self.init(
            keyId: keyId, teamId: teamId, privateKey: String(decoding: data, as: UTF8.self),
            configuration: configuration)
    }

    // MARK: APNs

    /// Sends one notification; returns its `apns-id`.
    package func send(_ notification: APNsNotification) async throws(APNsError) -> String {
        let first = await attemptAll(notification)
        guard case .failure(let error) = first.result, error.reason == .expiredProviderToken else {
            return try first.result.get()
        }
        // Apple says the token is too old (a clock skew, a long pause): make a new one and try once more.
        providerToken.expire(first.token ?? "")
        return try await attemptAll(notification).result.get()
    }

    private func attemptAll(_ notification: APNsNotification) async -> (
        result: Result<String, APNsError>, token: String?
    ) {
        let place = "APNs send to device \(notification.deviceToken.prefix(8))…"
        var last: APNsError?
        var usedToken: String?
        let outcome: Result<String, PushError> = await configuration.retry.run { _ in
            let token: String
            switch providerTokenResult() {
            case .success(let value): token = value
            case .failure(let error):
                let failure = APNsError(reason: .invalidProviderToken, status: nil, message: error.message)
                last = failure
                return .failure(failure.pushError)
            }
            usedToken = token
            let request = self.request(for: notification, token: token)
            let response: HTTPResponse
            switch await http.exchange(request) {
            case .success(let answer): response = answer
            case .failure(let error):
                let failure = APNsError(
                    reason: .transport, status: nil, apnsId: notification.id, message: "\(place): \(error)")
                last = failure
                if case .cancelled = error { return .failure(failure.pushError) }
                return .retry(failure.pushError, retryAfter: nil)
            }
            let apnsId = response.headers["apns-id"] ?? notification.id
            if response.isSuccess { return .success(apnsId ?? "") }
            let error = Self.error(response, apnsId: apnsId, place: place)
            last = error
            if error.reason == .expiredProviderToken { return .failure(error.pushError) }
            guard error.isRetryable else { return .failure(error.pushError) }
            return .retry(error.pushError, retryAfter: RetryAfter.delay(response.headers["Retry-After"]))
        }
        switch outcome {
        case .success(let id): return (.success(id), usedToken)
        case .failure(let pushError):
            var error = last ?? APNsError(reason: .transport, status: nil, message: pushError.message)
            if pushError.message.hasSuffix("attempts)"), let range = pushError.message.range(of: " (gave up after ") {
                error.message += pushError.message[range.lowerBound...]
            }
            return (.failure(error), usedToken)
        }
    }

    private func providerTokenResult() -> Result<String, CredentialError> {
        do {
            return .success(try providerToken.token())
        } catch {
            return .failure(error)
        }
    }

    private func request(for notification: APNsNotification, token: String) -> HTTPRequest {
        var headers: HTTPHeaders = [
            "authorization": "bearer \(token)", "apns-push-type": notification.pushType,
            "content-type": "application/json",
        ]
        if let topic = notification.topic ?? configuration.defaultTopic { headers["apns-topic"] = topic }
        if let priority = notification.priority { headers["apns-priority"] = String(priority) }
        if let expiration = notification.expiration { headers["apns-expiration"] = String(expiration) }
        if let collapseId = notification.collapseId { headers["apns-collapse-id"] = collapseId }
        if let id = notification.id { headers["apns-id"] = id }
        return HTTPRequest(
            method: .post, url: "\(configuration.baseURL)/3/device/\(notification.deviceToken)", headers: headers,
            body: notification.payload.extendedJSONBytes(mode: .relaxed), timeout: configuration.requestTimeout,
            httpVersion: configuration.httpVersion)
    }

    /// `{"reason":"Unregistered","timestamp":1700000000000}` → an `APNsError`.
    static func error(_ response: HTTPResponse, apnsId: String?, place: String) -> APNsError {
        let body = (try? ExtendedJSON.parseValue(response.body))?.documentValue
        let reason = body?["reason"]?.stringValue.map(APNsError.Reason.init(rawValue:))
        let timestamp = body?["timestamp"]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) }
        let fallback: APNsError.Reason =
            switch response.status {
            case 429: .tooManyRequests
            case 500: .internalServerError
            case 503: .serviceUnavailable
            default: APNsError.Reason(rawValue: "HTTP \(response.status)")
            }
        return APNsError(
            reason: reason ?? fallback, status: response.status, timestamp: timestamp, apnsId: apnsId,
            message: "\(place) answered \(response.status)")
    }

    // MARK: PushMessaging

    /// Sends an FCM-shaped message to the iOS device token it targets; returns the `apns-id`. APNs has no dry
    /// run: `validateOnly` checks the message and returns the id it would have sent under.
    package func send(_ message: PushMessage, validateOnly: Bool = false) async throws(PushError) -> String {
        try message.validate()
        var notification = try APNsNotification(message)
        if notification.id == nil { notification.id = UUID().uuidString.lowercased() }
        if validateOnly { return notification.id ?? "" }
        do {
            return try await send(notification)
        } catch {
            throw error.pushError
        }
    }

    /// Sends the message to each device token (at most 500) and reports each token's result in order.
    package func sendEachForMulticast(
        _ message: MulticastMessage, validateOnly: Bool = false
    ) async throws(PushError) -> BatchResponse {
        try message.validate()
        let results = await withTaskGroup(of: (Int, BatchResponse.Result).self) { group in
            for (index, token) in message.tokens.enumerated() {
                group.addTask {
                    do {
                        let id = try await self.send(message.message(to: token), validateOnly: validateOnly)
                        return (index, BatchResponse.Result(token: token, messageName: id))
                    } catch {
                        let failure = error as? PushError ?? PushError(code: .unknown, message: "\(error)")
                        return (index, BatchResponse.Result(token: token, error: failure))
                    }
                }
            }
            var results = message.tokens.map { BatchResponse.Result(token: $0) }
            for await (index, result) in group { results[index] = result }
            return results
        }
        return BatchResponse(results: results)
    }
}
