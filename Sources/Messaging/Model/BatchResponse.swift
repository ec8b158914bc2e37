/// Per-token results of a multicast, in the order of its tokens.
public struct BatchResponse: Sendable, Equatable {
    public struct Result: Sendable, Equatable {
        public var token: String
        /// The message name on success.
        public var messageName: String?
        /// The error on failure.
        public var error: PushError?

        public init(token: String, messageName: String? = nil, error: PushError? = nil) {
            self.token = token
            self.messageName = messageName
            self.error = error
        }
    }

    public var results: [Result]

    public init(results: [Result]) { self.results = results }

    public var successCount: Int { results.count { $0.error == nil } }
    public var failureCount: Int { results.count { $0.error != nil } }
}
