import BSON

/// A message as an Android app receives it: what the FCM SDK's `RemoteMessage` exposes, with the message's
/// `android` overrides applied as the device applies them.
public struct AndroidDelivery: Sendable, Equatable {
    /// `/topics/<topic>` for a topic message, else the sender id.
    public var from: String
    public var messageId: String
    /// `android.collapse_key`, when set.
    public var collapseKey: String?
    /// `high` or `normal`: `android.priority`, else FCM's default (high for notification messages, normal for
    /// data messages).
    public var priority: String
    /// The priority the message was sent with; the emulator never lowers it, so it equals `priority`.
    public var originalPriority: String
    /// Seconds FCM keeps the message for an offline device: `android.ttl`, else four weeks.
    public var ttl: Int
    /// When FCM accepted the message, in milliseconds since 1970.
    public var sentTime: Int64
    public var notification: Notification?
    /// `android.data` when set, else the message's `data`.
    public var data: [String: String]

    public init(
        from: String, messageId: String, collapseKey: String? = nil, priority: String, originalPriority: String,
        ttl: Int, sentTime: Int64, notification: Notification? = nil, data: [String: String] = [:]
    ) {
        self.from = from
        self.messageId = messageId
        self.collapseKey = collapseKey
        self.priority = priority
        self.originalPriority = originalPriority
        self.ttl = ttl
        self.sentTime = sentTime
        self.notification = notification
        self.data = data
    }

    /// FCM's longest and default time to live: 28 days.
    static let defaultTTL = 2_419_200

    /// The message as FCM hands it to one Android device.
    init(delivering message: PushMessage, messageId: String, from: String, sentTime: BSONDate) {
        let android = message.android
        let notification = Notification(message.notification, overriddenBy: android?.notification)
        let priority = android?.priority?.rawValue.lowercased() ?? (notification == nil ? "normal" : "high")
        self.init(
            from: from, messageId: messageId, collapseKey: android?.collapseKey, priority: priority,
            originalPriority: priority,
            ttl: android?.ttl.flatMap(ProtobufDuration.seconds).map { Int($0) } ?? Self.defaultTTL,
            sentTime: sentTime.millisecondsSinceEpoch, notification: notification,
            data: android?.data ?? message.data)
    }
}

extension AndroidDelivery {
    /// `{"from", "messageId", "collapseKey"?, "priority", "originalPriority", "ttl", "sentTime",
    /// "notification"?, "data"}`.
    var document: BSONDocument {
        var document: BSONDocument = ["from": .string(from), "messageId": .string(messageId)]
        document.appendIfPresent("collapseKey", collapseKey)
        document.append("priority", .string(priority))
        document.append("originalPriority", .string(originalPriority))
        document.append("ttl", .int64(Int64(ttl)))
        document.append("sentTime", .int64(sentTime))
        document.appendIfPresent("notification", notification?.document)
        document.append("data", .document(BSONDocument.sortedMap(data)))
        return document
    }

    init(document: BSONDocument) {
        self.init(
            from: document["from"]?.stringValue ?? "", messageId: document["messageId"]?.stringValue ?? "",
            collapseKey: document["collapseKey"]?.stringValue,
            priority: document["priority"]?.stringValue ?? "normal",
            originalPriority: document["originalPriority"]?.stringValue ?? "normal",
            ttl: document["ttl"]?.int64Value.map { Int($0) } ?? Self.defaultTTL,
            sentTime: document["sentTime"]?.int64Value ?? 0,
            notification: document["notification"]?.documentValue.map(Notification.init(document:)),
            data: document["data"]?.documentValue?.stringMap ?? [:])
    }
}
