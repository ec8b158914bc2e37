import BSON
import Messaging

extension FCMEmulator {
    /// `POST /v1/projects/{project}/registrations/{token}/topicSubscriptions?topic_name=<topic>`: FCM v1's
    /// topic subscription (what firebase-admin 7.7 and later call instead of IID's `batchAdd`, one request per
    /// token). Answers the subscription's name; 409 `ALREADY_EXISTS` when the token is already subscribed, as
    /// FCM does (firebase-admin counts that as success).
    func createTopicSubscription(_ request: ServerRequest, project: String, token: String) async -> ServerResponse {
        if let refusal = refusal(request, project: project) { return refusal.response }
        let topic = request.query["topic_name"] ?? ""
        if let invalid = registrationError(token: token, topic: topic) { return invalid.response }
        let name = "projects/\(project)/registrations/\(token)/topicSubscriptions/\(topic)"
        if topics.topics(of: token).contains(topic) {
            return GoogleAPIError(code: 409, message: "\(name) already exists.", status: "ALREADY_EXISTS").response
        }
        do {
            try await topics.subscribe([token], to: topic)
        } catch {
            return GoogleAPIError(
                code: 500, message: "The subscription could not be saved: \(error)", status: "INTERNAL"
            )
            .response
        }
        return .json(["name": .string(name)])
    }

    /// `DELETE /v1/projects/{project}/registrations/{token}/topicSubscriptions/{topic}[?allow_missing=true]`.
    func deleteTopicSubscription(_ request: ServerRequest, project: String, token: String, topic: String) async
        -> ServerResponse
    {
        if let refusal = refusal(request, project: project) { return refusal.response }
        if let invalid = registrationError(token: token, topic: topic) { return invalid.response }
        guard topics.topics(of: token).contains(topic) else {
            return request.query["allow_missing"] == "true" ? .json([:]) : GoogleAPIError.notFound.response
        }
        do {
            try await topics.unsubscribe([token], from: topic)
        } catch {
            return GoogleAPIError(
                code: 500, message: "The subscription could not be saved: \(error)", status: "INTERNAL"
            )
            .response
        }
        return .json([:])
    }

    /// Why a request to the project's resources is refused: no valid access token (401), credentials of
    /// another project (403), or another project (404); nil when it may go on.
    func refusal(_ request: ServerRequest, project: String) -> GoogleAPIError? {
        switch grant(request) {
        case .failure(let error): return error
        case .success(let grant):
            if let own = grant.project, own != project { return .permissionDenied(project: project) }
            return project == self.project ? nil : .notFound
        }
    }

    private func registrationError(token: String, topic: String) -> GoogleAPIError? {
        guard RegistrationToken.isWellFormed(token) else {
            return GoogleAPIError(
                PushError(
                    code: .invalidArgument, message: "The registration token is not a valid FCM registration token"),
                retryAfterSeconds: 0)
        }
        guard Self.isTopicName(topic) else {
            return GoogleAPIError(
                PushError(code: .invalidArgument, message: "Invalid topic name '\(topic)'"), retryAfterSeconds: 0)
        }
        if outbox.unregisteredTokens.contains(token) {
            return GoogleAPIError(
                PushError(code: .unregistered, message: "Requested entity was not found."), retryAfterSeconds: 0)
        }
        return nil
    }
}
