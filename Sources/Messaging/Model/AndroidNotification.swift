import BSON

/// The notification an Android device shows (`AndroidNotification`); each set field overrides the message's
/// `notification` on Android.
public struct AndroidNotification: Sendable, Equatable {
    public var title: String?
    public var body: String?
    /// A drawable resource name in the app.
    public var icon: String?
    /// Icon color as `#rrggbb`.
    public var color: String?
    /// `"default"` or a raw resource name in the app.
    public var sound: String?
    /// Notifications with the same tag replace each other in the drawer.
    public var tag: String?
    public var clickAction: String?
    public var bodyLocKey: String?
    public var bodyLocArgs: [String]?
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    /// The notification channel (Android O and later).
    public var channelId: String?
    public var ticker: String?
    public var sticky: Bool?
    /// An RFC 3339 timestamp (`"2014-10-02T15:01:23.045123456Z"`).
    public var eventTime: String?
    public var localOnly: Bool?
    /// `PRIORITY_MIN`, `PRIORITY_LOW`, `PRIORITY_DEFAULT`, `PRIORITY_HIGH` or `PRIORITY_MAX`.
    public var notificationPriority: String?
    public var defaultSound: Bool?
    public var defaultVibrateTimings: Bool?
    public var defaultLightSettings: Bool?
    /// Durations (`"0.5s"`) alternating off and on.
    public var vibrateTimings: [String]?
    /// `PRIVATE`, `PUBLIC` or `SECRET`.
    public var visibility: String?
    public var notificationCount: Int32?
    public var lightSettings: AndroidLightSettings?
    /// An image URL; overrides `notification.image` on Android.
    public var image: String?
    public var bypassProxyNotification: Bool?
    /// `ALLOW`, `DENY` or `IF_PRIORITY_LOWERED`.
    public var proxy: String?

    public init(
        title: String? = nil, body: String? = nil, icon: String? = nil, color: String? = nil,
        sound: String? = nil, tag: String? = nil, clickAction: String? = nil, channelId: String? = nil,
        image: String? = nil
    ) {
        self.title = title
        self.body = body
        self.icon = icon
        self.color = color
        self.sound = sound
        self.tag = tag
        self.clickAction = clickAction
        self.channelId = channelId
        self.image = image
    }
}

extension AndroidNotification {
    static let fieldNames = [
        "title", "body", "icon", "color", "sound", "tag", "click_action", "body_loc_key", "body_loc_args",
        "title_loc_key", "title_loc_args", "channel_id", "ticker", "sticky", "event_time", "local_only",
        "notification_priority", "default_sound", "default_vibrate_timings", "default_light_settings",
        "vibrate_timings", "visibility", "notification_count", "light_settings", "image",
        "bypass_proxy_notification", "proxy",
    ]

    /// Fields in the order of the reference's JSON representation (`fieldNames`).
    var fcmDocument: BSONDocument {
        var d = BSONDocument()
        d.appendIfPresent("title", title)
        d.appendIfPresent("body", body)
        d.appendIfPresent("icon", icon)
        d.appendIfPresent("color", color)
        d.appendIfPresent("sound", sound)
        d.appendIfPresent("tag", tag)
        d.appendIfPresent("click_action", clickAction)
        d.appendIfPresent("body_loc_key", bodyLocKey)
        d.appendIfPresent("body_loc_args", bodyLocArgs)
        d.appendIfPresent("title_loc_key", titleLocKey)
        d.appendIfPresent("title_loc_args", titleLocArgs)
        d.appendIfPresent("channel_id", channelId)
        d.appendIfPresent("ticker", ticker)
        d.appendIfPresent("sticky", sticky)
        d.appendIfPresent("event_time", eventTime)
        d.appendIfPresent("local_only", localOnly)
        d.appendIfPresent("notification_priority", notificationPriority)
        d.appendIfPresent("default_sound", defaultSound)
        d.appendIfPresent("default_vibrate_timings", defaultVibrateTimings)
        d.appendIfPresent("default_light_settings", defaultLightSettings)
        d.appendIfPresent("vibrate_timings", vibrateTimings)
        d.appendIfPresent("visibility", visibility)
        d.appendIfPresent("notification_count", notificationCount)
        d.appendIfPresent("light_settings", lightSettings?.fcmDocument)
        d.appendIfPresent("image", image)
        d.appendIfPresent("bypass_proxy_notification", bypassProxyNotification)
        d.appendIfPresent("proxy", proxy)
        return d
    }

    init(fcm value: BSON, path: String) throws(PushError) {
        let r = try FCMObjectReader(value, path: path, fields: Self.fieldNames)
        self.init(
            title: try r.string("title"), body: try r.string("body"), icon: try r.string("icon"),
            color: try r.string("color"), sound: try r.string("sound"), tag: try r.string("tag"),
            clickAction: try r.string("click_action"), channelId: try r.string("channel_id"),
            image: try r.string("image"))
        bodyLocKey = try r.string("body_loc_key")
        bodyLocArgs = try r.strings("body_loc_args")
        titleLocKey = try r.string("title_loc_key")
        titleLocArgs = try r.strings("title_loc_args")
        ticker = try r.string("ticker")
        sticky = try r.bool("sticky")
        eventTime = try r.string("event_time")
        localOnly = try r.bool("local_only")
        notificationPriority = try r.string("notification_priority")
        defaultSound = try r.bool("default_sound")
        defaultVibrateTimings = try r.bool("default_vibrate_timings")
        defaultLightSettings = try r.bool("default_light_settings")
        vibrateTimings = try r.strings("vibrate_timings")
        visibility = try r.string("visibility")
        notificationCount = try r.int32("notification_count")
        lightSettings = try r.value("light_settings").map { v throws(PushError) in
            try AndroidLightSettings(fcm: v, path: r.childPath("light_settings"))
        }
        bypassProxyNotification = try r.bool("bypass_proxy_notification")
        proxy = try r.string("proxy")
    }
}
