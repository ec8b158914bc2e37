import Synchronization

/// A `PushMessaging` whose transport can be replaced while sends go on: what `context.services.messaging` holds,
/// so that `switchyard serve` can point an app opened with the in-process outbox at an `FCMClient` speaking to its
/// own emulator endpoint once it knows its URL, and back when it stops serving. A send uses the transport in
/// effect when it starts.
public final class MessagingRoute: PushMessaging {
    private let current: Mutex<any PushMessaging>

    public init(_ transport: any PushMessaging) {
        current = Mutex(transport)
    }

    /// Where sends go from now on.
    public var transport: any PushMessaging {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    public func send(_ message: PushMessage, validateOnly: Bool) async throws -> String {
        try await transport.send(message, validateOnly: validateOnly)
    }

    public func sendEachForMulticast(_ message: MulticastMessage, validateOnly: Bool) async throws -> BatchResponse {
        try await transport.sendEachForMulticast(message, validateOnly: validateOnly)
    }
}
