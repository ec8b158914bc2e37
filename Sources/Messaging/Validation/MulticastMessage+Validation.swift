extension MulticastMessage {
    /// FCM's limit on tokens in one multicast.
    package static let maximumTokens = 500

    /// Checks the token list (1…500 tokens, none empty), then the shared message as `PushMessage.validate()`
    /// does for a token target.
    package func validate() throws(PushError) {
        guard !tokens.isEmpty else {
            throw PushMessage.invalid("tokens", "a multicast message needs at least one registration token")
        }
        guard tokens.count <= Self.maximumTokens else {
            throw PushMessage.invalid("tokens", "\(tokens.count) tokens, at most \(Self.maximumTokens) are allowed")
        }
        if let empty = tokens.firstIndex(of: "") {
            throw PushMessage.invalid("tokens[\(empty)]", "the registration token is empty")
        }
        // Only the token differs between the messages, and token length is not part of the counted payload.
        try message(to: tokens[0]).validate()
    }
}
