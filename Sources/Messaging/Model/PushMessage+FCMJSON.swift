import BSON

extension PushMessage {
    /// The message object's fields, in the order `document` writes them (the order of the reference's JSON
    /// representation, with the target last).
    static let fieldNames = [
        "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "token", "topic", "condition",
        "fid",
    ]

    /// The `message` object of an FCM v1 send request. Field order is fixed: `data`, `notification`, `android`,
    /// `webpush`, `apns`, `fcm_options`, then the target (`token` | `topic` | `condition` | `fid`); unset fields are
    /// left out, map keys (`data`, `headers`) are sorted by their UTF-8 bytes, and `apns.payload` and
    /// `webpush.notification` keep their own order.
    package var document: BSONDocument {
        var document = BSONDocument()
        if !data.isEmpty { document.appendIfPresent("data", data) }
        document.appendIfPresent("notification", notification?.fcmDocument)
        document.appendIfPresent("android", android?.fcmDocument)
        document.appendIfPresent("webpush", webpush?.fcmDocument)
        document.appendIfPresent("apns", apns?.fcmDocument)
        document.appendIfPresent("fcm_options", fcmOptions?.fcmDocument)
        document.append(target.fieldName, .string(target.value))
        return document
    }

    /// Reads a `message` object as FCM does: snake_case or camelCase names, unknown names and wrong types
    /// rejected, exactly one target. Errors are `invalidArgument` and name the field (`message.android.ttl`).
    /// The output-only `name` field is accepted and ignored.
    package init(document: BSONDocument, path: String = "message") throws(PushError) {
        let reader = try FCMObjectReader(.document(document), path: path, fields: Self.fieldNames)
        _ = try reader.string("name")
        var targets: [Target] = []
        if let token = try reader.string("token") { targets.append(.token(token)) }
        if let topic = try reader.string("topic") { targets.append(.topic(topic)) }
        if let condition = try reader.string("condition") { targets.append(.condition(condition)) }
        if let fid = try reader.string("fid") { targets.append(.fid(fid)) }
        guard let target = targets.first else {
            throw PushError(
                code: .invalidArgument,
                message: "Recipient of the message is not set: '\(path)' needs one of token, topic, condition or fid.",
                field: path)
        }
        guard targets.count == 1 else {
            throw PushError(
                code: .invalidArgument,
                message:
                    "Invalid value at '\(path)' (oneof), oneof field 'target' is already set. Cannot set '\(targets[1].fieldName)'",
                field: path)
        }
        self.init(
            target: target,
            notification: try reader.value("notification").map { v throws(PushError) in
                try PushNotification(fcm: v, path: reader.childPath("notification"))
            },
            data: try reader.stringMap("data") ?? [:],
            android: try reader.value("android").map { v throws(PushError) in
                try AndroidConfig(fcm: v, path: reader.childPath("android"))
            },
            apns: try reader.value("apns").map { v throws(PushError) in
                try APNSConfig(fcm: v, path: reader.childPath("apns"))
            },
            webpush: try reader.value("webpush").map { v throws(PushError) in
                try WebpushConfig(fcm: v, path: reader.childPath("webpush"))
            },
            fcmOptions: try reader.value("fcm_options").map { v throws(PushError) in
                try FCMOptions(fcm: v, path: reader.childPath("fcm_options"))
            })
    }

    /// The body of `POST /v1/projects/{project}/messages:send`: `{"message":{…}}`, then
    /// `"validate_only":true` only when asked (FCM's default is false).
    package func sendRequestDocument(validateOnly: Bool = false) -> BSONDocument {
        FCMSendRequest(message: self, validateOnly: validateOnly).document
    }

    /// The send request as compact JSON bytes.
    package func sendRequestJSON(validateOnly: Bool = false) -> [UInt8] {
        sendRequestDocument(validateOnly: validateOnly).extendedJSONBytes(mode: .relaxed)
    }
}
