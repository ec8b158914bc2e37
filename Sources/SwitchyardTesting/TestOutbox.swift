import BSON
import Messaging

/// The push messages an app under test sent, in memory and in order, with fault injection for the next sends.
/// Each entry carries what every platform's app receives (`ios`, `android`, `web`):
///
/// ```swift
/// try await app.outbox.register("phone", platform: .ios)
/// // … the app sends …
/// let ios = try #require(app.outbox.messages(reaching: "phone").last?.ios)
/// #expect(ios.userInfo["gcm.message_id"] != nil)
/// #expect(ios.aps.mutableContent == 1)
/// ```
public struct TestOutbox: Sendable {
    /// The transport behind `context.services.messaging`.
    package let messaging: OutboxMessaging

    package init(messaging: OutboxMessaging) {
        self.messaging = messaging
    }

    /// Every send, oldest first: each token of a multicast is one entry; failed sends are included.
    public var entries: [OutboxEntry] { messaging.entries }

    /// The sends a device would have received.
    public var delivered: [OutboxEntry] { entries.filter(\.isDelivered) }

    /// The sends refused through fault injection.
    public var failed: [OutboxEntry] { entries.filter { !$0.isDelivered } }

    /// The delivered messages to `topic` (with or without the `/topics/` prefix).
    public func messages(toTopic topic: String) -> [OutboxEntry] {
        let name = PushMessage.Target.topic(topic).value
        return delivered.filter {
            guard case .topic = $0.target else { return false }
            return $0.target.value == name
        }
    }

    /// The delivered messages to the registration token `token`.
    public func messages(toToken token: String) -> [OutboxEntry] {
        delivered.filter { $0.target == .token(token) }
    }

    /// The delivered messages that reached the registered token `token`: sent to it, or to a topic or condition
    /// it is subscribed to.
    public func messages(reaching token: String) -> [OutboxEntry] {
        delivered.filter { $0.reachedTokens.contains(token) }
    }

    /// Registers `token` as a device of `platform`, so messages that reach it record that platform's view only
    /// (nil: unknown, the iOS and the Android view).
    public func register(_ token: String, platform: DevicePlatform?) async throws {
        try await messaging.devices.register(token, platform: platform)
    }

    /// Subscribes `tokens` to `topic`, as the client SDKs' `subscribe(toTopic:)` does.
    public func subscribe(_ tokens: [String], to topic: String) async throws {
        try await messaging.topics.subscribe(tokens, to: topic)
    }

    /// The delivered messages to the condition `condition`.
    public func messages(toCondition condition: String) -> [OutboxEntry] {
        delivered.filter { $0.target == .condition(condition) }
    }

    /// Tokens that answer `UNREGISTERED` from now on, like the token of an uninstalled app.
    public var unregisteredTokens: Set<String> {
        get { messaging.unregisteredTokens }
        nonmutating set { messaging.unregisteredTokens = newValue }
    }

    /// Tokens that FCM refuses from now on as not being registration tokens (`INVALID_ARGUMENT`).
    public var malformedTokens: Set<String> {
        get { messaging.malformedTokens }
        nonmutating set { messaging.malformedTokens = newValue }
    }

    /// Makes the next `count` deliveries fail with `code` (each token of a multicast is one delivery).
    public func failNextSends(_ count: Int, with code: PushError.Code = .unavailable) {
        messaging.failNextSends(count, with: code)
    }

    /// Forgets what was sent so far.
    public func removeAll() {
        messaging.removeAllEntries()
    }
}
