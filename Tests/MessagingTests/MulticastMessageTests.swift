import Messaging
import Testing

@Suite struct MulticastMessageTests {
    @Test func tokenCountAndEmptyTokens() throws {
        try MulticastMessage(tokens: ["a"]).validate()
        try MulticastMessage(tokens: (1...500).map { "t\($0)" }).validate()
        #expect(
            throws: PushError(
                code: .invalidArgument,
                message: "Invalid value at 'tokens': a multicast message needs at least one registration token",
                field: "tokens")
        ) {
            try MulticastMessage(tokens: []).validate()
        }
        #expect(
            throws: PushError(
                code: .invalidArgument, message: "Invalid value at 'tokens': 501 tokens, at most 500 are allowed",
                field: "tokens")
        ) {
            try MulticastMessage(tokens: (1...501).map { "t\($0)" }).validate()
        }
        #expect(
            throws: PushError(
                code: .invalidArgument, message: "Invalid value at 'tokens[1]': the registration token is empty",
                field: "tokens[1]")
        ) {
            try MulticastMessage(tokens: ["a", ""]).validate()
        }
    }

    @Test func sharedPartIsValidatedLikeASingleMessage() {
        #expect(throws: PushError.self) {
            try MulticastMessage(tokens: ["a"], data: ["from": "x"]).validate()
        }
    }

    @Test func eachTokenGetsTheSharedMessage() {
        let multicast = MulticastMessage(
            tokens: ["a", "b"], notification: PushNotification(title: "t"), data: ["k": "v"],
            android: AndroidConfig(priority: .high))
        #expect(multicast.messages.map(\.target) == [.token("a"), .token("b")])
        #expect(
            multicast.messages.allSatisfy {
                $0.notification?.title == "t" && $0.data == ["k": "v"] && $0.android?.priority == .high
            })
    }
}
