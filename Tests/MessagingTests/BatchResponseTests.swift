import Messaging
import Testing

@Suite struct BatchResponseTests {
    @Test func tokensToDeleteAreTheUnregisteredAndTheMalformed() {
        let response = BatchResponse(results: [
            .init(token: "ok", messageName: "projects/p/messages/1"),
            .init(token: "gone", error: PushError(code: .unregistered, message: "Requested entity was not found.")),
            .init(
                token: "junk",
                error: PushError(
                    code: .invalidArgument, message: "The registration token is not a valid FCM registration token")),
            .init(token: "busy", error: PushError(code: .unavailable, message: "try later")),
            .init(
                token: "payload",
                error: PushError(code: .invalidArgument, message: "too big", field: "message.android")),
            .init(target: .topic("books"), error: PushError(code: .unregistered, message: "odd")),
        ])
        #expect(response.tokensToDelete == ["gone", "junk"])
    }
}
