import BSON

/// Platform-independent options for features of the FCM SDKs (`FcmOptions`).
public struct FCMOptions: Sendable, Equatable {
    /// Label attached to the message's analytics data (`[a-zA-Z0-9-_.~%]{1,50}`).
    public var analyticsLabel: String?

    public init(analyticsLabel: String? = nil) {
        self.analyticsLabel = analyticsLabel
    }
}

extension FCMOptions {
    static let fieldNames = ["analytics_label"]

    var fcmDocument: BSONDocument {
        var document = BSONDocument()
        document.appendIfPresent("analytics_label", analyticsLabel)
        return document
    }

    init(fcm value: BSON, path: String) throws(PushError) {
        let reader = try FCMObjectReader(value, path: path, fields: Self.fieldNames)
        self.init(analyticsLabel: try reader.string("analytics_label"))
    }
}
