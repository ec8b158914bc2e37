import BSON

/// Apple Push Notification service options (`ApnsConfig`): HTTP/2 request headers for APNs and the APNs
/// payload itself.
public struct APNSConfig: Sendable, Equatable {
    /// APNs request headers (`apns-priority`, `apns-push-type`, `apns-collapse-id`, `apns-expiration`, …).
    public var headers: [String: String]
    /// The APNs JSON payload: an `aps` dictionary (`alert`, `badge`, `sound`, `thread-id`, `mutable-content`, …)
    /// plus the app's own keys. FCM merges `notification` into `aps.alert` unless the payload sets it.
    public var payload: BSONDocument?
    public var fcmOptions: APNSFCMOptions?
    /// The Live Activity push token, for `apns-push-type: liveactivity` messages.
    public var liveActivityToken: String?

    public init(
        headers: [String: String] = [:], payload: BSONDocument? = nil, fcmOptions: APNSFCMOptions? = nil,
        liveActivityToken: String? = nil
    ) {
        self.headers = headers
        self.payload = payload
        self.fcmOptions = fcmOptions
        self.liveActivityToken = liveActivityToken
    }
}

extension APNSConfig {
    static let fieldNames = ["headers", "payload", "fcm_options", "live_activity_token"]

    /// `headers` (keys sorted), `payload` (in its own order), `fcm_options`, `live_activity_token`.
    var fcmDocument: BSONDocument {
        var document = BSONDocument()
        if !headers.isEmpty { document.appendIfPresent("headers", headers) }
        document.appendIfPresent("payload", payload)
        document.appendIfPresent("fcm_options", fcmOptions?.fcmDocument)
        document.appendIfPresent("live_activity_token", liveActivityToken)
        return document
    }

    init(fcm value: BSON, path: String) throws(PushError) {
        let reader = try FCMObjectReader(value, path: path, fields: Self.fieldNames)
        self.init(
            headers: try reader.stringMap("headers") ?? [:],
            payload: try reader.object("payload"),
            fcmOptions: try reader.value("fcm_options").map { v throws(PushError) in
                try APNSFCMOptions(fcm: v, path: reader.childPath("fcm_options"))
            },
            liveActivityToken: try reader.string("live_activity_token"))
    }
}
