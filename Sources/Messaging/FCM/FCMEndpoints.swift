/// Where `FCMClient` sends: Google's services by default, or a local stand-in (the FCM emulator of
/// `switchyard serve`, a test server) that answers the same paths.
package struct FCMEndpoints: Sendable, Equatable {
    /// `POST {messagesBaseURL}/v1/projects/{project}/messages:send`.
    package var messagesBaseURL: String
    /// `POST {instanceIdBaseURL}/iid/v1:batchAdd` and `:batchRemove` (topic subscriptions).
    package var instanceIdBaseURL: String
    /// Replaces the service account's `token_uri` when set.
    package var tokenURI: String?

    package init(
        messagesBaseURL: String = "https://fcm.googleapis.com",
        instanceIdBaseURL: String = "https://iid.googleapis.com",
        tokenURI: String? = nil
    ) {
        self.messagesBaseURL = Self.trimmed(messagesBaseURL)
        self.instanceIdBaseURL = Self.trimmed(instanceIdBaseURL)
        self.tokenURI = tokenURI
    }

    /// Google's FCM and Instance ID services; tokens from the service account's `token_uri`.
    package static let google = FCMEndpoints()

    /// One server answering every path, as the emulator does: messages and topic management under `baseURL`,
    /// tokens from `{baseURL}/oauth2/token`.
    package static func emulator(_ baseURL: String) -> FCMEndpoints {
        let base = trimmed(baseURL)
        return FCMEndpoints(messagesBaseURL: base, instanceIdBaseURL: base, tokenURI: base + "/oauth2/token")
    }

    func sendURL(project: String) -> String { "\(messagesBaseURL)/v1/projects/\(project)/messages:send" }

    func topicURL(_ operation: TopicOperation) -> String { "\(instanceIdBaseURL)/iid/v1:\(operation.rawValue)" }

    private static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}

/// The two Instance ID batch calls.
enum TopicOperation: String {
    case subscribe = "batchAdd"
    case unsubscribe = "batchRemove"
}
