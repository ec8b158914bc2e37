import BSON

/// The common notification, filled into the APNs and Android parts of a message the way the App Services push
/// tutorial does, so one call reaches iOS and Android alike:
///
/// - `notification`: `title`, `body`;
/// - `data`: `data`, plus `type` under `"type"` (it wins over a `"type"` in `data`);
/// - `image`: `android.notification.image`, `apns.fcm_options.image` and `apns.payload.aps.mutable-content = 1`
///   (iOS shows images through a notification service extension, which that flag wakes);
/// - `collapseId`: `android.collapse_key`, the `apns-collapse-id` header and `apns.payload.aps.thread-id`;
/// - `badge`: `apns.payload.aps.badge`; `sound`: `apns.payload.aps.sound` and `android.notification.sound`.
///
/// `aps` fields are written in the order `thread-id`, `badge`, `sound`, `mutable-content`; `android` and `apns`
/// are left out when nothing goes into them.
public struct PortableNotification: Sendable, Equatable {
    public var title: String
    public var body: String
    public var image: String?
    public var type: String?
    public var collapseId: String?
    public var badge: Int?
    public var sound: String?
    public var data: [String: String]

    public init(
        title: String, body: String, image: String? = nil, type: String? = nil, collapseId: String? = nil,
        badge: Int? = nil, sound: String? = nil, data: [String: String] = [:]
    ) {
        self.title = title
        self.body = body
        self.image = image
        self.type = type
        self.collapseId = collapseId
        self.badge = badge
        self.sound = sound
        self.data = data
    }

    /// The message for one target.
    public func message(to target: PushMessage.Target) -> PushMessage {
        PushMessage(
            target: target, notification: PushNotification(title: title, body: body), data: messageData,
            android: android, apns: apns)
    }

    /// The message for many registration tokens.
    public func multicast(to tokens: [String]) -> MulticastMessage {
        MulticastMessage(
            tokens: tokens, notification: PushNotification(title: title, body: body), data: messageData,
            android: android, apns: apns)
    }

    private var messageData: [String: String] {
        var data = data
        if let type { data["type"] = type }
        return data
    }

    private var android: AndroidConfig? {
        guard image != nil || collapseId != nil || sound != nil else { return nil }
        let notification =
            image != nil || sound != nil ? AndroidNotification(sound: sound, image: image) : nil
        return AndroidConfig(collapseKey: collapseId, notification: notification)
    }

    private var apns: APNSConfig? {
        guard image != nil || collapseId != nil || badge != nil || sound != nil else { return nil }
        var aps = BSONDocument()
        if let collapseId { aps.append("thread-id", .string(collapseId)) }
        if let badge { aps.append("badge", BSON(integerLiteral: badge)) }
        if let sound { aps.append("sound", .string(sound)) }
        if image != nil { aps.append("mutable-content", .int32(1)) }
        return APNSConfig(
            headers: collapseId.map { ["apns-collapse-id": $0] } ?? [:],
            payload: ["aps": .document(aps)],
            fcmOptions: image.map { APNSFCMOptions(image: $0) })
    }
}

extension PushMessage {
    /// A message built from a `PortableNotification` (see there for where each argument goes).
    public static func portable(
        target: Target, title: String, body: String, image: String? = nil, type: String? = nil,
        collapseId: String? = nil, badge: Int? = nil, sound: String? = nil, data: [String: String] = [:]
    ) -> PushMessage {
        PortableNotification(
            title: title, body: body, image: image, type: type, collapseId: collapseId, badge: badge, sound: sound,
            data: data
        ).message(to: target)
    }
}

extension MulticastMessage {
    /// A multicast built from a `PortableNotification` (see there for where each argument goes).
    public static func portable(
        tokens: [String], title: String, body: String, image: String? = nil, type: String? = nil,
        collapseId: String? = nil, badge: Int? = nil, sound: String? = nil, data: [String: String] = [:]
    ) -> MulticastMessage {
        PortableNotification(
            title: title, body: body, image: image, type: type, collapseId: collapseId, badge: badge, sound: sound,
            data: data
        ).multicast(to: tokens)
    }
}
