import BSON

/// An FCM HTTP v1 message (`projects.messages`): exactly one target, plus notification, data and
/// per-platform overrides. `document` is its JSON as FCM reads it; `validate()` checks what FCM would refuse.
public struct PushMessage: Sendable, Equatable {
    /// Who receives the message: one registration token, everyone subscribed to a topic, a condition over
    /// topics (`"'books' in topics && !('muted' in topics)"`), or one app instance by its Firebase installation ID.
    public enum Target: Sendable, Equatable {
        case token(String)
        /// A topic name; a leading `/topics/` is accepted and left out of the JSON.
        case topic(String)
        case condition(String)
        /// A Firebase installation ID (FID): the app instance's own id, which FCM addresses as it addresses a
        /// registration token (firebase-admin 7.7 and later prefer it to `token`).
        case fid(String)
    }

    public var target: Target
    public var notification: PushNotification?
    /// Custom key-value pairs delivered to the app; overridden per platform by `android.data`/`webpush.data`.
    public var data: [String: String]
    public var android: AndroidConfig?
    public var apns: APNSConfig?
    public var webpush: WebpushConfig?
    public var fcmOptions: FCMOptions?

    public init(
        target: Target, notification: PushNotification? = nil, data: [String: String] = [:],
        android: AndroidConfig? = nil, apns: APNSConfig? = nil, webpush: WebpushConfig? = nil,
        fcmOptions: FCMOptions? = nil
    ) {
        self.target = target
        self.notification = notification
        self.data = data
        self.android = android
        self.apns = apns
        self.webpush = webpush
        self.fcmOptions = fcmOptions
    }
}

extension PushMessage.Target {
    /// The field name FCM uses for this kind of target.
    public var fieldName: String {
        switch self {
        case .token: "token"
        case .topic: "topic"
        case .condition: "condition"
        case .fid: "fid"
        }
    }

    /// The target's value as sent (a topic without its `/topics/` prefix).
    public var value: String {
        switch self {
        case .token(let token): token
        case .topic(let topic): topic.hasPrefix("/topics/") ? String(topic.dropFirst("/topics/".count)) : topic
        case .condition(let condition): condition
        case .fid(let fid): fid
        }
    }
}
