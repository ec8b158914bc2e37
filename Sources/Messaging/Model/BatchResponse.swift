/// Per-token results of a multicast, in the order of its tokens.
public struct BatchResponse: Sendable, Equatable {
    public struct Result: Sendable, Equatable {
        /// Who the message went to (for `sendEach`, a topic or condition too).
        public var target: PushMessage.Target
        /// The registration token; for a topic or condition message, the topic or condition.
        public var token: String
        /// The message name on success.
        public var messageName: String?
        /// The error on failure.
        public var error: PushError?

        public init(token: String, messageName: String? = nil, error: PushError? = nil) {
            self.init(target: .token(token), messageName: messageName, error: error)
        }

        public init(target: PushMessage.Target, messageName: String? = nil, error: PushError? = nil) {
            self.target = target
            self.token = target.value
            self.messageName = messageName
            self.error = error
        }
    }

    public var results: [Result]

    public init(results: [Result]) { self.results = results }

    public var successCount: Int { results.count { $0.error == nil } }
    public var failureCount: Int { results.count { $0.error != nil } }

    /// The registration tokens the app should delete, in order: those FCM reported unregistered, or refused as
    /// not being registration tokens (`PushError.invalidatesToken`). Other failures are worth retrying instead.
    public var tokensToDelete: [String] {
        results.compactMap { result in
            guard case .token(let token) = result.target, result.error?.invalidatesToken == true else { return nil }
            return token
        }
    }
}
