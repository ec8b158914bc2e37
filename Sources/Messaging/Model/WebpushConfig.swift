import BSON

/// Web push protocol options (`WebpushConfig`).
public struct WebpushConfig: Sendable, Equatable {
    /// Web push protocol headers (`TTL`, `Urgency`, …).
    public var headers: [String: String]
    /// Overrides `PushMessage.data` for web clients when set.
    public var data: [String: String]?
    /// A Web Notification options object (`title`, `body`, `icon`, `actions`, …); overrides `notification`.
    public var notification: BSONDocument?
    public var fcmOptions: WebpushFCMOptions?

    public init(
        headers: [String: String] = [:], data: [String: String]? = nil, notification: BSONDocument? = nil,
        fcmOptions: WebpushFCMOptions? = nil
    ) {
        self.headers = headers
        self.data = data
        self.notification = notification
        self.fcmOptions = fcmOptions
    }
}

extension WebpushConfig {
    static let fieldNames = ["headers", "data", "notification", "fcm_options"]

    var fcmDocument: BSONDocument {
        var document = BSONDocument()
        if !headers.isEmpty { document.appendIfPresent("headers", headers) }
        document.appendIfPresent("data", data)
        document.appendIfPresent("notification", notification)
        document.appendIfPresent("fcm_options", fcmOptions?.fcmDocument)
        return document
    }

    init(fcm value: BSON, path: String) throws(PushError) {
        let reader = try FCMObjectReader(value, path: path, fields: Self.fieldNames)
        self.init(
            headers: try reader.stringMap("headers") ?? [:],
            data: try reader.stringMap("data"),
            notification: try reader.object("notification"),
            fcmOptions: try reader.value("fcm_options").map { v throws(PushError) in
                try WebpushFCMOptions(fcm: v, path: reader.childPath("fcm_options"))
            })
    }
}
