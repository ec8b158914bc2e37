import BSON

extension AndroidDelivery {
    /// `RemoteMessage.Notification`: the message's `notification` overridden field by field by
    /// `android.notification`, under the SDK's names.
    public struct Notification: Sendable, Equatable {
        public var title: String?
        public var body: String?
        public var titleLocKey: String?
        public var titleLocArgs: [String]?
        public var bodyLocKey: String?
        public var bodyLocArgs: [String]?
        /// `android.notification.image`, else `notification.image`.
        public var imageUrl: String?
        public var icon: String?
        public var color: String?
        public var sound: String?
        public var tag: String?
        public var clickAction: String?
        public var channelId: String?
        public var ticker: String?
        public var sticky: Bool?
        public var localOnly: Bool?
        public var notificationPriority: String?
        public var visibility: String?
        public var notificationCount: Int32?
        public var eventTime: String?

        public init(title: String? = nil, body: String? = nil, imageUrl: String? = nil) {
            self.title = title
            self.body = body
            self.imageUrl = imageUrl
        }

        /// Nil when neither sets a field: a data message shows no notification.
        init?(_ base: PushNotification?, overriddenBy android: AndroidNotification?) {
            self.init(
                title: android?.title ?? base?.title, body: android?.body ?? base?.body,
                imageUrl: android?.image ?? base?.image)
            if let android {
                titleLocKey = android.titleLocKey
                titleLocArgs = android.titleLocArgs
                bodyLocKey = android.bodyLocKey
                bodyLocArgs = android.bodyLocArgs
                icon = android.icon
                color = android.color
                sound = android.sound
                tag = android.tag
                clickAction = android.clickAction
                channelId = android.channelId
                ticker = android.ticker
                sticky = android.sticky
                localOnly = android.localOnly
                notificationPriority = android.notificationPriority
                visibility = android.visibility
                notificationCount = android.notificationCount
                eventTime = android.eventTime
            }
            if document.isEmpty { return nil }
        }
    }
}

extension AndroidDelivery.Notification {
    /// The set fields under the SDK's names, in declaration order.
    var document: BSONDocument {
        var d = BSONDocument()
        d.appendIfPresent("title", title)
        d.appendIfPresent("body", body)
        d.appendIfPresent("titleLocKey", titleLocKey)
        d.appendIfPresent("titleLocArgs", titleLocArgs)
        d.appendIfPresent("bodyLocKey", bodyLocKey)
        d.appendIfPresent("bodyLocArgs", bodyLocArgs)
        d.appendIfPresent("imageUrl", imageUrl)
        d.appendIfPresent("icon", icon)
        d.appendIfPresent("color", color)
        d.appendIfPresent("sound", sound)
        d.appendIfPresent("tag", tag)
        d.appendIfPresent("clickAction", clickAction)
        d.appendIfPresent("channelId", channelId)
        d.appendIfPresent("ticker", ticker)
        d.appendIfPresent("sticky", sticky)
        d.appendIfPresent("localOnly", localOnly)
        d.appendIfPresent("notificationPriority", notificationPriority)
        d.appendIfPresent("visibility", visibility)
        d.appendIfPresent("notificationCount", notificationCount)
        d.appendIfPresent("eventTime", eventTime)
        return d
    }

    init(document d: BSONDocument) {
        self.init(
            title: d["title"]?.stringValue, body: d["body"]?.stringValue, imageUrl: d["imageUrl"]?.stringValue)
        titleLocKey = d["titleLocKey"]?.stringValue
        titleLocArgs = d["titleLocArgs"]?.stringArray
        bodyLocKey = d["bodyLocKey"]?.stringValue
        bodyLocArgs = d["bodyLocArgs"]?.stringArray
        icon = d["icon"]?.stringValue
        color = d["color"]?.stringValue
        sound = d["sound"]?.stringValue
        tag = d["tag"]?.stringValue
        clickAction = d["clickAction"]?.stringValue
        channelId = d["channelId"]?.stringValue
        ticker = d["ticker"]?.stringValue
        sticky = d["sticky"]?.boolValue
        localOnly = d["localOnly"]?.boolValue
        notificationPriority = d["notificationPriority"]?.stringValue
        visibility = d["visibility"]?.stringValue
        notificationCount = d["notificationCount"]?.int64Value.flatMap { Int32(exactly: $0) }
        eventTime = d["eventTime"]?.stringValue
    }
}
