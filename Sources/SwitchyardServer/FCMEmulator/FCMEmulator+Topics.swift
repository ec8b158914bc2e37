import BSON
import Messaging

extension FCMEmulator {
    /// The most tokens one `batchAdd`/`batchRemove` takes (firebase-admin's limit too).
    static let maximumBatchTokens = 1000

    /// `POST /iid/v1:batchAdd` and `:batchRemove`: `{to: "/topics/x", registration_tokens: [...]}`, answered per
    /// token in order: `{}`, or `{error: "NOT_FOUND"}` for an unregistered token, `{error: "INVALID_ARGUMENT"}`
    /// for a string that cannot be a token.
    func batch(_ request: ServerRequest, subscribe: Bool) async -> ServerResponse {
        if case .failure = grant(request) {
            return Self.iidError(401, "UNAUTHENTICATED", "a valid access token is required")
        }
        guard let body = try? PlainJSON.parseDocument(request.body) else {
            return Self.iidError(400, "INVALID_ARGUMENT", "the body must be a JSON object")
        }
        guard case .string(let to)? = body["to"], to.hasPrefix("/topics/"),
            Self.isTopicName(PushMessage.Target.topic(to).value)
        else {
            return Self.iidError(400, "INVALID_ARGUMENT", "'to' must be /topics/<name> with a valid topic name")
        }
        guard case .array(let items)? = body["registration_tokens"], !items.isEmpty,
            items.count <= Self.maximumBatchTokens
        else {
            return Self.iidError(
                400, "INVALID_ARGUMENT",
                "'registration_tokens' must list 1 to \(Self.maximumBatchTokens) registration tokens")
        }
        let unregistered = outbox.unregisteredTokens
        var results: [BSON] = []
        var accepted: [String] = []
        for item in items {
            guard case .string(let token) = item, RegistrationToken.isWellFormed(token) else {
                results.append(["error": "INVALID_ARGUMENT"])
                continue
            }
            if unregistered.contains(token) {
                results.append(["error": "NOT_FOUND"])
                continue
            }
            accepted.append(token)
            results.append(.document([:]))
        }
        let topic = PushMessage.Target.topic(to).value
        do {
            if subscribe {
                try await topics.subscribe(accepted, to: topic)
            } else {
                try await topics.unsubscribe(accepted, from: topic)
            }
        } catch {
            return Self.iidError(500, "INTERNAL", "the subscriptions could not be saved: \(error)")
        }
        return .json(["results": .array(results)])
    }

    /// `POST /iid/v1/{token}/rel/topics/{topic}`: what a device's app calls to subscribe itself.
    func subscribeDevice(_ request: ServerRequest, token: String, topic: String) async -> ServerResponse {
        let legacyKey = request.headers["authorization"].map { $0.hasPrefix("key=") && $0.count > 4 } ?? false
        if !legacyKey, case .failure = grant(request) {
            return Self.iidError(401, "UNAUTHENTICATED", "a valid access token or server key is required")
        }
        guard RegistrationToken.isWellFormed(token) else {
            return Self.iidError(400, "INVALID_ARGUMENT", "not a registration token")
        }
        guard Self.isTopicName(topic) else {
            return Self.iidError(400, "INVALID_ARGUMENT", "'\(topic)' is not a valid topic name")
        }
        if outbox.unregisteredTokens.contains(token) {
            return Self.iidError(404, "NOT_FOUND", "the registration token is not registered")
        }
        do {
            try await topics.subscribe([token], to: topic)
        } catch {
            return Self.iidError(500, "INTERNAL", "the subscription could not be saved: \(error)")
        }
        return .json([:])
    }

    /// The Instance ID service's error shape, `{"error": "<CODE>"}` (what firebase-admin reads), with a
    /// `message` for people.
    static func iidError(_ status: Int, _ code: String, _ message: String) -> ServerResponse {
        .json(["error": .string(code), "message": .string(message)], status: status)
    }

    /// FCM's topic name rules: `[a-zA-Z0-9-_.~%]+`.
    static func isTopicName(_ name: String) -> Bool {
        (try? PushMessage(target: .topic(name)).validate()) != nil
    }
}
