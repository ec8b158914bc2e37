import BSON

/// A message as an iOS app receives it through APNs: the payload FCM builds from `notification`, `data` and
/// `apns` (what the app reads as `userInfo`) and the APNs request headers FCM sends it with.
///
/// ```swift
/// let ios = try #require(entry.ios)
/// #expect(ios.userInfo["gcm.message_id"] != nil)  // what the FCM SDK and apps check a message by
/// #expect(ios.aps.mutableContent == 1)
/// ```
public struct IOSDelivery: Sendable, Equatable {
    /// The whole APNs payload: `aps`, the payload's own keys, the message's `data` keys at the top level,
    /// `gcm.message_id`, `google.c.sender.id`, `google.c.a.e` (notification messages) and
    /// `fcm_options.image` (when the message has an image).
    public var userInfo: BSONDocument
    /// APNs request headers: `apns-priority`, `apns-push-type`, `apns-expiration` (FCM's defaults when the
    /// message sets none), `apns-collapse-id` and any other `apns.headers`.
    public var headers: [String: String]

    public init(userInfo: BSONDocument, headers: [String: String]) {
        self.userInfo = userInfo
        self.headers = headers
    }

    /// `userInfo["aps"]`, typed.
    public var aps: APSDictionary { APSDictionary(apns: userInfo["aps"]?.documentValue ?? [:]) }

    /// `userInfo["gcm.message_id"]`: apps tell FCM's notifications from others' by it.
    public var messageId: String? { userInfo["gcm.message_id"]?.stringValue }

    /// `userInfo["fcm_options"]["image"]`: what the notification service extension downloads.
    public var image: String? { userInfo.value(atPath: "fcm_options.image")?.stringValue }

    /// How long FCM keeps a message for an offline iOS device when `apns-expiration` is not set: 30 days.
    static let defaultExpirationSeconds: Int64 = 30 * 24 * 3600

    /// The message as FCM hands it to APNs for one device.
    init(delivering message: PushMessage, messageId: String, senderId: String, sentTime: BSONDate) {
        let notification = message.notification
        var aps = message.apns?.payload?["aps"]?.documentValue ?? [:]
        // The message's notification fills the alert; the payload's own alert fields win, and a string alert is
        // the payload's own body.
        if notification?.title != nil || notification?.body != nil {
            switch aps["alert"] {
            case .string?: break
            case .document(var alert)?:
                if alert["title"] == nil, let title = notification?.title { alert["title"] = .string(title) }
                if alert["body"] == nil, let body = notification?.body { alert["body"] = .string(body) }
                aps["alert"] = .document(alert)
            default:
                var alert = BSONDocument()
                alert.appendIfPresent("title", notification?.title)
                alert.appendIfPresent("body", notification?.body)
                aps["alert"] = .document(alert)
            }
        }
        var userInfo: BSONDocument = ["aps": .document(aps)]
        for (key, value) in message.apns?.payload ?? [:] where key != "aps" { userInfo[key] = value }
        for (key, value) in BSONDocument.sortedMap(message.data) { userInfo[key] = value }
        userInfo["gcm.message_id"] = .string(messageId)
        userInfo["google.c.sender.id"] = .string(senderId)
        if aps["alert"] != nil { userInfo["google.c.a.e"] = "1" }
        if let image = message.apns?.fcmOptions?.image ?? notification?.image {
            userInfo["fcm_options"] = ["image": .string(image)]
        }
        var headers = message.apns?.headers ?? [:]
        if headers["apns-priority"] == nil { headers["apns-priority"] = "10" }
        if headers["apns-expiration"] == nil {
            headers["apns-expiration"] = String(
                sentTime.millisecondsSinceEpoch / 1000 + Self.defaultExpirationSeconds)
        }
        if headers["apns-push-type"] == nil {
            let visible = aps["alert"] != nil || aps["badge"] != nil || aps["sound"] != nil
            headers["apns-push-type"] = !visible && aps["content-available"] != nil ? "background" : "alert"
        }
        self.init(userInfo: userInfo, headers: headers)
    }
}

extension IOSDelivery {
    /// `{"headers": {…}, "userInfo": {…}}`, header names sorted.
    var document: BSONDocument {
        ["headers": .document(BSONDocument.sortedMap(headers)), "userInfo": .document(userInfo)]
    }

    init(document: BSONDocument) {
        self.init(
            userInfo: document["userInfo"]?.documentValue ?? [:],
            headers: document["headers"]?.documentValue?.stringMap ?? [:])
    }
}

extension BSONDocument {
    /// The string fields, by name.
    var stringMap: [String: String] {
        var map: [String: String] = [:]
        for (key, value) in self { if let string = value.stringValue { map[key] = string } }
        return map
    }
}
