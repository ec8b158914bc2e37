import BSON

/// Android options for messages delivered by FCM (`AndroidConfig`).
public struct AndroidConfig: Sendable, Equatable {
    /// `normal` or `high` (`AndroidMessagePriority`; FCM also reads the upper-case enum names).
    public struct Priority: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let normal = Priority(rawValue: "normal")
        public static let high = Priority(rawValue: "high")
    }

    /// Messages with the same key replace each other while the device is offline (at most 4 keys at a time).
    public var collapseKey: String?
    public var priority: Priority?
    /// How long FCM keeps the message for an offline device, as a protobuf duration: `"3.5s"`, at most 4 weeks.
    public var ttl: String?
    /// The app's package name; the registration token must belong to it.
    public var restrictedPackageName: String?
    /// Overrides `PushMessage.data` on Android when set.
    public var data: [String: String]?
    public var notification: AndroidNotification?
    public var fcmOptions: AndroidFCMOptions?
    /// Deliver while the device is in direct boot mode.
    public var directBootOk: Bool?

    public init(
        collapseKey: String? = nil, priority: Priority? = nil, ttl: String? = nil,
        restrictedPackageName: String? = nil, data: [String: String]? = nil,
        notification: AndroidNotification? = nil, fcmOptions: AndroidFCMOptions? = nil, directBootOk: Bool? = nil
    ) {
        self.collapseKey = collapseKey
        self.priority = priority
        self.ttl = ttl
        self.restrictedPackageName = restrictedPackageName
        self.data = data
        self.notification = notification
        self.fcmOptions = fcmOptions
        self.directBootOk = directBootOk
    }
}

extension AndroidConfig {
    static let fieldNames = [
        "collapse_key", "priority", "ttl", "restricted_package_name", "data", "notification", "fcm_options",
        "direct_boot_ok",
    ]

    /// Fields in the order of the reference's JSON representation (`fieldNames`).
    var fcmDocument: BSONDocument {
        var document = BSONDocument()
        document.appendIfPresent("collapse_key", collapseKey)
        document.appendIfPresent("priority", priority?.rawValue)
        document.appendIfPresent("ttl", ttl)
        document.appendIfPresent("restricted_package_name", restrictedPackageName)
        document.appendIfPresent("data", data)
        document.appendIfPresent("notification", notification?.fcmDocument)
        document.appendIfPresent("fcm_options", fcmOptions?.fcmDocument)
        document.appendIfPresent("direct_boot_ok", directBootOk)
        return document
    }

    init(fcm value: BSON, path: String) throws(PushError) {
        let reader = try FCMObjectReader(value, path: path, fields: Self.fieldNames)
        self.init(
            collapseKey: try reader.string("collapse_key"),
            priority: try reader.string("priority").map(Priority.init(rawValue:)),
            ttl: try reader.string("ttl"),
            restrictedPackageName: try reader.string("restricted_package_name"),
            data: try reader.stringMap("data"),
            notification: try reader.value("notification").map { v throws(PushError) in
                try AndroidNotification(fcm: v, path: reader.childPath("notification"))
            },
            fcmOptions: try reader.value("fcm_options").map { v throws(PushError) in
                try AndroidFCMOptions(fcm: v, path: reader.childPath("fcm_options"))
            },
            directBootOk: try reader.bool("direct_boot_ok"))
    }
}
