/// Per-token results of subscribing tokens to a topic or unsubscribing them, in the order of the tokens.
package struct TopicManagementResponse: Sendable, Equatable {
    package struct Result: Sendable, Equatable {
        package var token: String
        /// The Instance ID service's reason (`NOT_FOUND`, `INVALID_ARGUMENT`, `INTERNAL`, …); nil on success.
        package var error: String?

        package init(token: String, error: String? = nil) {
            self.token = token
            self.error = error
        }
    }

    package var results: [Result]

    package init(results: [Result]) { self.results = results }

    package var successCount: Int { results.count { $0.error == nil } }
    package var failureCount: Int { results.count { $0.error != nil } }
}
