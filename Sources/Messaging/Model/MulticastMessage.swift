/// One message sent to many registration tokens (at most 500): every field but the target is shared.
public struct MulticastMessage: Sendable, Equatable {
    public var tokens: [String]
    public var notification: PushNotification?
    public var data: [String: String]
    public var android: AndroidConfig?
    public var apns: APNSConfig?
    public var webpush: WebpushConfig?
    public var fcmOptions: FCMOptions?

    public init(
        tokens: [String], notification: PushNotification? = nil, data: [String: String] = [:],
        android: AndroidConfig? = nil, apns: APNSConfig? = nil, webpush: WebpushConfig? = nil,
        fcmOptions: FCMOptions? = nil
    ) {
        self.tokens = tokens
        self.notification = notification
        self.data = data
        self.android = android
        self.apns = apns
        self.webpush = webpush
        self.fcmOptions = fcmOptions
    }

    /// The single message FCM receives for one of the tokens.
    public func message(to token: String) -> PushMessage {
        PushMessage(
            target: .token(token), notification: notification, data: data, android: android, apns: apns,
            webpush: webpush, fcmOptions: fcmOptions)
    }

    /// One message per token, in order.
    public var messages: [PushMessage] { tokens.map(message(to:)) }
}
