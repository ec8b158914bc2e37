/// Per-token results of subscribing tokens to a topic or unsubscribing them, in the order of the tokens.
public struct TopicManagementResponse: Sendable, Equatable {
    public struct Result: Sendable, Equatable {
        public var token: String
        /// The Instance ID service's reason (`NOT_FOUND`, `INVALID_ARGUMENT`, `INTERNAL`, …); nil on success.
        public var error: String?

        public init(token: String, error: String? = nil) {
            self.token = token
            self.error = error
        }
    }

    public var results: [Result]

    public init(results: [Result]) { self.results = results }

    public var successCount: Int { results.count { $0.error == nil } }
    public var failureCount: Int { results.count { $0.error != nil } }
}
