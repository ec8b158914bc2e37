import BSON
import Foundation
import Messaging

/// Firebase Cloud Messaging on loopback: the HTTP v1 send endpoint, the Instance ID topic management calls
/// and an OAuth2 token endpoint, answering with FCM's own bodies and errors, so firebase-admin and
/// Switchyard's `FCMClient` run their real code paths against it. What it accepts goes through `outbox`
/// (validation, topic reach, fault injection, the app's outbox log).
///
/// Routes (`routes`):
/// - `POST /oauth2/token` — JWT-bearer grant → `{access_token, expires_in: 3600, token_type: "Bearer"}`
/// - `POST /v1/projects/{project}/messages:send` — `{message, validate_only?}` → `{name}`
/// - `POST /v1/projects/{project}/registrations/{token}/topicSubscriptions?topic_name=<topic>` → `{name}`
///   (409 `ALREADY_EXISTS` when subscribed), `DELETE …/topicSubscriptions/{topic}[?allow_missing=true]` → `{}`:
///   FCM v1's topic management, one token per request (firebase-admin 7.7+)
/// - `POST /iid/v1:batchAdd`, `POST /iid/v1:batchRemove` — `{to: "/topics/x", registration_tokens: [...]}` →
///   `{results: [{} | {error: "NOT_FOUND" | "INVALID_ARGUMENT"}]}`
/// - `POST /iid/v1/{token}/rel/topics/{topic}` — one device subscribes itself → `{}`
/// - `PUT /emulator/v1/projects/{project}/devices/{token}` — `{platform: "ios" | "android" | "web"}` →
///   `{token, platform}`: the platform whose payload the outbox records for the token (emulator-only)
///
/// Every route wants `Authorization: Bearer <token from /oauth2/token>` (the device route also takes a
/// legacy `Authorization: key=…`), or, as Firebase's own emulators take it, `Authorization: Bearer owner`, so a
/// developer can `curl` a route without an OAuth2 exchange (unless `acceptsOwnerToken` is false). Faults
/// (`faults`) apply to `messages:send`.
///
/// ```swift
/// let emulator = FCMEmulator(outbox: app.pushOutbox)
/// router.add(emulator.routes)
/// emulator.faults.unavailable = 3 // the next three sends answer 503
/// ```
package final class FCMEmulator: Sendable {
    package let outbox: OutboxMessaging
    let accessTokens: FCMAccessTokens
    /// Whether `Bearer owner` stands for a valid access token.
    package let acceptsOwnerToken: Bool

    /// The bearer token Firebase's emulators take as the project owner's.
    package static let ownerToken = "owner"

    /// The Firebase project it answers for (`outbox.project`); other projects in URLs get 404.
    package var project: String { outbox.project }

    /// The failures injected from now on (the outbox's; shared with in-process sends).
    package var faults: FaultSettings {
        get { outbox.faults }
        set { outbox.faults = newValue }
    }

    /// Topic subscriptions, as the IID endpoints change them.
    package var topics: TopicSubscriptions { outbox.topics }

    /// - Parameters:
    ///   - tokenLifetime: how long issued access tokens are accepted (Google's: an hour).
    ///   - acceptsOwnerToken: whether `Authorization: Bearer owner` is accepted as an access token (false where
    ///     the server also delivers for real, `switchyard serve --push live`).
    package init(outbox: OutboxMessaging, tokenLifetime: Duration = .seconds(3600), acceptsOwnerToken: Bool = true) {
        self.outbox = outbox
        accessTokens = FCMAccessTokens(lifetime: tokenLifetime)
        self.acceptsOwnerToken = acceptsOwnerToken
    }

    /// An access token for `serviceAccount`, as the token endpoint would issue it: for tests and tools that
    /// skip the OAuth2 exchange.
    package func issueAccessToken(serviceAccount: String = "switchyard@localhost") -> String {
        accessTokens.issue(to: serviceAccount)
    }

    /// Its routes; each checks its own credentials, as FCM answers them differently per endpoint.
    package var routes: RouterGroup {
        var routes = RouterGroup()
        routes.add("POST", Self.tokenPath) { [self] request, _ in token(request) }
        routes.add("POST", "/v1/projects/{project}/messages:send") { [self] request, parameters in
            await send(request, project: parameters["project"] ?? "")
        }
        let subscriptions = "/v1/projects/{project}/registrations/{token}/topicSubscriptions"
        routes.add("POST", subscriptions) { [self] request, parameters in
            await createTopicSubscription(
                request, project: parameters["project"] ?? "", token: parameters["token"] ?? "")
        }
        routes.add("DELETE", subscriptions + "/{topic}") { [self] request, parameters in
            await deleteTopicSubscription(
                request, project: parameters["project"] ?? "", token: parameters["token"] ?? "",
                topic: parameters["topic"] ?? "")
        }
        routes.add("POST", "/iid/v1:batchAdd") { [self] request, _ in await batch(request, subscribe: true) }
        routes.add("POST", "/iid/v1:batchRemove") { [self] request, _ in await batch(request, subscribe: false) }
        routes.add("PUT", "/emulator/v1/projects/{project}/devices/{token}") { [self] request, parameters in
            await registerDevice(request, project: parameters["project"] ?? "", token: parameters["token"] ?? "")
        }
        routes.add("POST", "/iid/v1/{token}/rel/topics/{topic}") { [self] request, parameters in
            await subscribeDevice(request, token: parameters["token"] ?? "", topic: parameters["topic"] ?? "")
        }
        return routes
    }

    /// The grant of the request's bearer token, or why there is none (Google's 401 reasons).
    func grant(_ request: ServerRequest) -> Result<FCMAccessTokens.Grant, GoogleAPIError> {
        guard let token = request.bearerToken else {
            return .failure(.unauthenticated(reason: "CREDENTIALS_MISSING"))
        }
        if token == Self.ownerToken {
            if acceptsOwnerToken { return .success(FCMAccessTokens.Grant(serviceAccount: Self.ownerToken)) }
            var refused = GoogleAPIError.unauthenticated(reason: "ACCESS_TOKEN_TYPE_UNSUPPORTED")
            refused.message =
                "Request had invalid authentication credentials. 'Bearer owner' is accepted only while the server sends through its FCM emulator (switchyard serve --push emulator); get an access token from \(Self.tokenPath) instead."
            return .failure(refused)
        }
        switch accessTokens.check(token) {
        case .valid(let grant): return .success(grant)
        case .expired: return .failure(.unauthenticated(reason: "ACCESS_TOKEN_EXPIRED"))
        case .unknown: return .failure(.unauthenticated(reason: "ACCESS_TOKEN_TYPE_UNSUPPORTED"))
        }
    }
}
