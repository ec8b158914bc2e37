import BSON

/// The `aps` dictionary of an APNs payload, as an iOS app finds it under `userInfo["aps"]`, with the keys of
/// Apple's payload key reference.
public struct APSDictionary: Sendable, Equatable {
    public var alert: APSAlert?
    public var badge: Int?
    /// A sound file name (`"default"`); critical alerts' sound dictionaries are left in `userInfo`.
    public var sound: String?
    public var category: String?
    /// `thread-id`: notifications with the same id are grouped.
    public var threadId: String?
    /// `mutable-content`: 1 wakes the app's notification service extension (which downloads
    /// `fcm_options.image`).
    public var mutableContent: Int?
    /// `content-available`: 1 wakes the app in the background.
    public var contentAvailable: Int?

    public init(
        alert: APSAlert? = nil, badge: Int? = nil, sound: String? = nil, category: String? = nil,
        threadId: String? = nil, mutableContent: Int? = nil, contentAvailable: Int? = nil
    ) {
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.category = category
        self.threadId = threadId
        self.mutableContent = mutableContent
        self.contentAvailable = contentAvailable
    }

    /// Reads an `aps` dictionary; keys of the wrong type are left out.
    public init(apns aps: BSONDocument) {
        self.init(
            alert: aps["alert"].map(APSAlert.init(apns:)), badge: aps["badge"]?.int64Value.map { Int($0) },
            sound: aps["sound"]?.stringValue, category: aps["category"]?.stringValue,
            threadId: aps["thread-id"]?.stringValue,
            mutableContent: aps["mutable-content"]?.int64Value.map { Int($0) },
            contentAvailable: aps["content-available"]?.int64Value.map { Int($0) })
    }
}
