import BSON

/// Options for features of the FCM SDK for the web (`WebpushFcmOptions`).
public struct WebpushFCMOptions: Sendable, Equatable {
    /// The page opened when the user clicks the notification; must be HTTPS.
    public var link: String?
    public var analyticsLabel: String?

    public init(link: String? = nil, analyticsLabel: String? = nil) {
        self.link = link
        self.analyticsLabel = analyticsLabel
    }
}

extension WebpushFCMOptions {
    static let fieldNames = ["link", "analytics_label"]

    var fcmDocument: BSONDocument {
        var document = BSONDocument()
        document.appendIfPresent("link", link)
        document.appendIfPresent("analytics_label", analyticsLabel)
        return document
    }

    init(fcm value: BSON, path: String) throws(PushError) {
        let reader = try FCMObjectReader(value, path: path, fields: Self.fieldNames)
        self.init(link: try reader.string("link"), analyticsLabel: try reader.string("analytics_label"))
    }
}
