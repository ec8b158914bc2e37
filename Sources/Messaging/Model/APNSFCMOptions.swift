import BSON

/// Options for features of the FCM SDK for iOS (`ApnsFcmOptions`).
public struct APNSFCMOptions: Sendable, Equatable {
    public var analyticsLabel: String?
    /// An image URL shown in the notification; overrides `notification.image`. The app needs a notification
    /// service extension, woken by `aps.mutable-content = 1`.
    public var image: String?

    public init(analyticsLabel: String? = nil, image: String? = nil) {
        self.analyticsLabel = analyticsLabel
        self.image = image
    }
}

extension APNSFCMOptions {
    static let fieldNames = ["analytics_label", "image"]

    var fcmDocument: BSONDocument {
        var document = BSONDocument()
        document.appendIfPresent("analytics_label", analyticsLabel)
        document.appendIfPresent("image", image)
        return document
    }

    init(fcm value: BSON, path: String) throws(PushError) {
        let reader = try FCMObjectReader(value, path: path, fields: Self.fieldNames)
        self.init(analyticsLabel: try reader.string("analytics_label"), image: try reader.string("image"))
    }
}
