/// What functions use to send push notifications (`context.services.messaging`), whatever carries them:
/// the FCM HTTP v1 client, APNs, or a local outbox. Shaped after firebase-admin's `send` and
/// `sendEachForMulticast`.
public protocol PushMessaging: Sendable {
    /// Sends one message; returns the message name FCM assigns (`projects/p/messages/123`).
    func send(_ message: PushMessage, validateOnly: Bool) async throws -> String

    /// Sends one message per token (at most 500), returning a result per token in order.
    func sendEachForMulticast(_ message: MulticastMessage, validateOnly: Bool) async throws -> BatchResponse
}

extension PushMessaging {
    /// Sends one message for delivery (not a dry run).
    public func send(_ message: PushMessage) async throws -> String {
        try await send(message, validateOnly: false)
    }

    /// Sends one message per token for delivery (not a dry run).
    public func sendEachForMulticast(_ message: MulticastMessage) async throws -> BatchResponse {
        try await sendEachForMulticast(message, validateOnly: false)
    }
}
