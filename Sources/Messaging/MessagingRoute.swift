import Synchronization

/// A `PushMessaging` whose transport can be replaced while sends go on: what `context.services.messaging` holds,
/// so that `switchyard serve` can point an app opened with the in-process outbox at an `FCMClient` speaking to its
/// own emulator endpoint once it knows its URL, and back when it stops serving. A send uses the transport in
/// effect when it starts.
package final class MessagingRoute: PushMessaging {
    private let current: Mutex<any PushMessaging>

    package init(_ transport: any PushMessaging) {
        current = Mutex(transport)
    }

    /// Where sends go from now on.
    package var transport: any PushMessaging {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    package func send(_ message: PushMessage, validateOnly: Bool) async throws -> String {
        try await transport.send(message, validateOnly: validateOnly)
    }

    package func sendEachForMulticast(_ message: MulticastMessage, validateOnly: Bool) async throws -> BatchResponse {
        try await transport.sendEachForMulticast(message, validateOnly: validateOnly)
    }
}
