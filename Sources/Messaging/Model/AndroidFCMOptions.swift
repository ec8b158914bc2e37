import BSON

/// Options for features of the FCM SDK for Android (`AndroidFcmOptions`).
public struct AndroidFCMOptions: Sendable, Equatable {
    public var analyticsLabel: String?

    public init(analyticsLabel: String? = nil) {
        self.analyticsLabel = analyticsLabel
    }
}

extension AndroidFCMOptions {
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
