import BSON

/// A message as a web app receives it: the FCM JavaScript SDK's `MessagePayload`, with the message's
/// `webpush` overrides applied.
public struct WebDelivery: Sendable, Equatable {
    /// `/topics/<topic>` for a topic message, else the sender id.
    public var from: String
    public var messageId: String
    /// The Web Notification options the service worker shows (`title`, `body`, `image`, `icon`, `actions`, …):
    /// the message's `notification` with `webpush.notification`'s fields over it; nil for a data message.
    public var notification: BSONDocument?
    /// `webpush.data` when set, else the message's `data`.
    public var data: [String: String]
    /// `webpush.fcm_options`: `link` is the page a click opens.
    public var fcmOptions: WebpushFCMOptions?

    public init(
        from: String, messageId: String, notification: BSONDocument? = nil, data: [String: String] = [:],
        fcmOptions: WebpushFCMOptions? = nil
    ) {
        self.from = from
        self.messageId = messageId
        self.notification = notification
        self.data = data
        self.fcmOptions = fcmOptions
    }

    /// The message as FCM hands it to one browser.
    init(delivering message: PushMessage, messageId: String, from: String) {
        var notification = message.notification?.fcmDocument ?? [:]
        for (key, value) in message.webpush?.notification ?? [:] { notification[key] = value }
        self.init(
            from: from, messageId: messageId, notification: notification.isEmpty ? nil : notification,
            data: message.webpush?.data ?? message.data, fcmOptions: message.webpush?.fcmOptions)
    }
}

extension WebDelivery {
    /// `{"from", "messageId", "notification"?, "data", "fcmOptions"?: {"link"?, "analyticsLabel"?}}`.
    var document: BSONDocument {
        var document: BSONDocument = ["from": .string(from), "messageId": .string(messageId)]
        document.appendIfPresent("notification", notification)
        document.append("data", .document(BSONDocument.sortedMap(data)))
        if let fcmOptions {
            var options = BSONDocument()
            options.appendIfPresent("link", fcmOptions.link)
            options.appendIfPresent("analyticsLabel", fcmOptions.analyticsLabel)
            document.append("fcmOptions", .document(options))
        }
        return document
    }

    init(document: BSONDocument) {
        let options = document["fcmOptions"]?.documentValue
        self.init(
            from: document["from"]?.stringValue ?? "", messageId: document["messageId"]?.stringValue ?? "",
            notification: document["notification"]?.documentValue,
            data: document["data"]?.documentValue?.stringMap ?? [:],
            fcmOptions: options.map {
                WebpushFCMOptions(link: $0["link"]?.stringValue, analyticsLabel: $0["analyticsLabel"]?.stringValue)
            })
    }
}
