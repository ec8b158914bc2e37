import BSON

/// One request to APNs: the device, the JSON payload (`aps` plus the app's keys) and the `apns-*` headers.
package struct APNsNotification: Sendable, Equatable {
    package var deviceToken: String
    /// `{"aps":{"alert":…,"badge":…,"sound":…},…}`.
    package var payload: BSONDocument
    /// `apns-topic`: the app's bundle id (the client's default when nil).
    package var topic: String?
    /// `apns-push-type`: `alert`, `background`, `voip`, `liveactivity`, …
    package var pushType: String
    /// `apns-priority`: 10 now, 5 when convenient for the device, 1 prioritising power.
    package var priority: Int?
    /// `apns-expiration`: UNIX seconds until which APNs keeps retrying delivery; 0 tries once.
    package var expiration: Int64?
    /// `apns-collapse-id`: notifications with the same id replace each other (at most 64 bytes).
    package var collapseId: String?
    /// `apns-id`: a UUID naming the notification; APNs makes one when nil.
    package var id: String?

    package init(
        deviceToken: String, payload: BSONDocument, topic: String? = nil, pushType: String = "alert",
        priority: Int? = nil, expiration: Int64? = nil, collapseId: String? = nil, id: String? = nil
    ) {
        self.deviceToken = deviceToken
        self.payload = payload
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.id = id
    }
}

extension APNsNotification {
    /// The FCM-shaped message as APNs receives it when FCM forwards it to an iPhone: `apns.payload` with
    /// `notification`'s title and body as `aps.alert` unless the payload has one, `data` as top-level keys, and the
    /// `apns.headers`. Only token targets can be sent this way (topics and conditions are FCM's).
    init(_ message: PushMessage) throws(PushError) {
        guard case .token(let token) = message.target else {
            throw PushMessage.invalid(
                message.target.fieldName, "APNs delivers to device tokens only, not to a \(message.target.fieldName)")
        }
        let apns = message.apns ?? APNSConfig()
        var payload = apns.payload ?? [:]
        var aps = payload["aps"]?.documentValue ?? [:]
        if aps["alert"] == nil, let notification = message.notification,
            notification.title != nil || notification.body != nil
        {
            var alert = BSONDocument()
            if let title = notification.title { alert.append("title", .string(title)) }
            if let body = notification.body { alert.append("body", .string(body)) }
            aps.append("alert", .document(alert))
        }
        payload["aps"] = .document(aps)
        for key in message.data.keys.sorted() where payload[key] == nil {
            payload.append(key, .string(message.data[key] ?? ""))
        }
        let headers = apns.headers
        let visible = aps["alert"] != nil || aps["badge"] != nil || aps["sound"] != nil
        self.init(
            deviceToken: token, payload: payload, topic: headers["apns-topic"],
            pushType: headers["apns-push-type"] ?? (visible ? "alert" : "background"),
            priority: headers["apns-priority"].flatMap { Int($0) } ?? (visible ? nil : 5),
            expiration: headers["apns-expiration"].flatMap { Int64($0) }, collapseId: headers["apns-collapse-id"],
            id: headers["apns-id"])
    }
}
