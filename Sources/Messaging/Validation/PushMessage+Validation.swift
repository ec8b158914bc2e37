import BSON

extension PushMessage {
    /// The payload limit FCM applies to a message (4 KB).
    package static let maximumPayloadBytes = 4096
    /// The stricter limit for messages sent to a topic (2 KB).
    package static let maximumTopicPayloadBytes = 2048
    /// FCM keeps a message for an offline device at most four weeks.
    package static let maximumTTLSeconds: Double = 4 * 7 * 24 * 3600

    /// Data keys FCM reserves for itself.
    static let reservedDataKeys: Set<String> = ["from", "message_type"]
    /// Data key prefixes FCM reserves (`google.c.a.e`, `gcm.notification.title`, …).
    static let reservedDataKeyPrefixes = ["google", "gcm"]

    /// APNs push types (`apns-push-type`) Apple documents.
    static let apnsPushTypes: Set<String> = [
        "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity",
        "pushtotalk", "controls", "widgets",
    ]

    /// Checks what FCM would refuse with `INVALID_ARGUMENT`, naming the field in the message:
    /// - the target: a non-empty token or FID; a topic matching `[a-zA-Z0-9-_.~%]+` (after an optional
    ///   `/topics/`); a condition that parses (see `TopicCondition`) with at most 5 topics;
    /// - `data` and `android.data` / `webpush.data` keys: not `from` or `message_type`, not starting with
    ///   `google` or `gcm` (the reference's reserved words; FCM accepts `notification`, so it is allowed), not empty;
    /// - the payload size: the UTF-8 bytes of `document` printed as compact JSON *without its target field*
    ///   must not exceed 4096, or 2048 for a topic message;
    /// - `android`: `ttl` a duration such as `"3.5s"` of at most 4 weeks, `priority` `normal`/`high`, the
    ///   notification's `color` as `#rrggbb`, its enum fields and durations;
    /// - `apns.headers`: `apns-priority` 1, 5 or 10 (5 when the push type is `background` or the message carries
    ///   data only), `apns-push-type` a known type, `apns-expiration` a number, `apns-collapse-id` at most
    ///   64 bytes; `apns.payload.aps` an object;
    /// - `fcm_options.analytics_label` (all of them) matching `[a-zA-Z0-9-_.~%]{1,50}`; `webpush.fcm_options.link`
    ///   an HTTPS URL.
    package func validate() throws(PushError) {
        try validateTarget()
        try Self.validateData(data, path: "message.data")
        if let analyticsLabel = fcmOptions?.analyticsLabel {
            try Self.validateAnalyticsLabel(analyticsLabel, path: "message.fcm_options.analytics_label")
        }
        if let android { try Self.validate(android) }
        if let apns { try validate(apns) }
        if let webpush { try Self.validate(webpush) }
        try validatePayloadSize()
    }

    /// The number of bytes the size limit is checked against: `document` as compact JSON without the target.
    package var payloadByteCount: Int {
        var document = document
        document.removeValue(forKey: target.fieldName)
        return document.extendedJSONBytes(mode: .relaxed).count
    }

    private func validateTarget() throws(PushError) {
        switch target {
        case .token(let token):
            guard !token.isEmpty else { throw Self.invalid("message.token", "the registration token is empty") }
        case .topic(let topic):
            guard TopicName.isValid(target.value) else {
                throw Self.invalid(
                    "message.topic",
                    "\"\(topic)\" is not a valid topic name (allowed: letters, digits and - _ . ~ %, with an optional leading /topics/)"
                )
            }
        case .condition(let condition):
            _ = try TopicCondition(parsing: condition)
        case .fid(let fid):
            guard !fid.isEmpty else { throw Self.invalid("message.fid", "the Firebase installation ID is empty") }
        }
    }

    private func validatePayloadSize() throws(PushError) {
        let limit: Int
        if case .topic = target { limit = Self.maximumTopicPayloadBytes } else { limit = Self.maximumPayloadBytes }
        let size = payloadByteCount
        guard size <= limit else {
            throw Self.invalid(
                "message",
                "the payload is \(size) bytes, more than the \(limit) allowed for a \(target.fieldName) message")
        }
    }

    static func validateData(_ data: [String: String], path: String) throws(PushError) {
        for key in data.keys.sorted() {
            if key.isEmpty { throw invalid(path, "a data key is empty") }
            if reservedDataKeys.contains(key) || reservedDataKeyPrefixes.contains(where: { key.hasPrefix($0) }) {
                throw invalid(
                    "\(path)[\"\(key)\"]",
                    "\"\(key)\" is a reserved data key (from, message_type and keys starting with google or gcm)")
            }
        }
    }

    static func validateAnalyticsLabel(_ label: String, path: String) throws(PushError) {
        guard (1...50).contains(label.utf8.count), label.utf8.allSatisfy(TopicName.isAllowed) else {
            throw invalid(path, "\"\(label)\" must be 1 to 50 of letters, digits and - _ . ~ %")
        }
    }

    private static func validate(_ android: AndroidConfig) throws(PushError) {
        if let ttl = android.ttl {
            guard let seconds = ProtobufDuration.seconds(ttl) else {
                throw invalid("message.android.ttl", "\"\(ttl)\" is not a duration such as \"3.5s\"")
            }
            guard seconds <= maximumTTLSeconds else {
                throw invalid("message.android.ttl", "\(ttl) is longer than 4 weeks (2419200s)")
            }
        }
        if let priority = android.priority, !["normal", "high"].contains(priority.rawValue.lowercased()) {
            throw invalid("message.android.priority", "\"\(priority.rawValue)\" is not one of normal, high")
        }
        if let data = android.data { try validateData(data, path: "message.android.data") }
        if let label = android.fcmOptions?.analyticsLabel {
            try validateAnalyticsLabel(label, path: "message.android.fcm_options.analytics_label")
        }
        if let notification = android.notification { try validate(notification) }
    }

    private static func validate(_ notification: AndroidNotification) throws(PushError) {
        let path = "message.android.notification"
        if let color = notification.color, !isHexColor(color) {
            throw invalid("\(path).color", "\"\(color)\" is not a color in #rrggbb form")
        }
        try validateEnum(
            notification.notificationPriority, path: "\(path).notification_priority",
            allowed: [
                "PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH",
                "PRIORITY_MAX",
            ])
        try validateEnum(
            notification.visibility, path: "\(path).visibility",
            allowed: ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"])
        try validateEnum(
            notification.proxy, path: "\(path).proxy",
            allowed: ["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"])
        for (i, timing) in (notification.vibrateTimings ?? []).enumerated()
        where ProtobufDuration.seconds(timing) == nil {
            throw invalid("\(path).vibrate_timings[\(i)]", "\"\(timing)\" is not a duration such as \"0.5s\"")
        }
        if let count = notification.notificationCount, count < 0 {
            throw invalid("\(path).notification_count", "\(count) is negative")
        }
        if let light = notification.lightSettings {
            for (name, duration) in [
                ("light_on_duration", light.lightOnDuration), ("light_off_duration", light.lightOffDuration),
            ]
            where ProtobufDuration.seconds(duration) == nil {
                throw invalid("\(path).light_settings.\(name)", "\"\(duration)\" is not a duration such as \"0.5s\"")
            }
        }
    }

    private func validate(_ apns: APNSConfig) throws(PushError) {
        let path = "message.apns"
        var headers: [String: String] = [:]
        for (name, value) in apns.headers { headers[name.lowercased()] = value }
        let pushType = headers["apns-push-type"]
        if let pushType, !Self.apnsPushTypes.contains(pushType) {
            throw Self.invalid(
                "\(path).headers[\"apns-push-type\"]",
                "\"\(pushType)\" is not an APNs push type (\(Self.apnsPushTypes.sorted().joined(separator: ", ")))")
        }
        if let priority = headers["apns-priority"] {
            guard ["1", "5", "10"].contains(priority) else {
                throw Self.invalid("\(path).headers[\"apns-priority\"]", "\"\(priority)\" is not one of 1, 5, 10")
            }
            if priority == "10" && pushType == "background" {
                throw Self.invalid(
                    "\(path).headers[\"apns-priority\"]",
                    "background pushes (apns-push-type background) must use priority 5")
            }
            if priority == "10" && notification == nil && apns.payload?.value(atPath: "aps.alert") == nil {
                throw Self.invalid(
                    "\(path).headers[\"apns-priority\"]",
                    "a message with data only (no notification, no aps.alert) must use priority 5 on iOS")
            }
        }
        if let expiration = headers["apns-expiration"], Int64(expiration) == nil {
            throw Self.invalid(
                "\(path).headers[\"apns-expiration\"]", "\"\(expiration)\" is not a UNIX time in seconds")
        }
        if let collapseId = headers["apns-collapse-id"], collapseId.utf8.count > 64 {
            throw Self.invalid("\(path).headers[\"apns-collapse-id\"]", "longer than 64 bytes")
        }
        if let aps = apns.payload?["aps"], aps.documentValue == nil {
            throw Self.invalid("\(path).payload.aps", "must be an object, not \(aps.typeName)")
        }
        if let label = apns.fcmOptions?.analyticsLabel {
            try Self.validateAnalyticsLabel(label, path: "\(path).fcm_options.analytics_label")
        }
    }

    private static func validate(_ webpush: WebpushConfig) throws(PushError) {
        if let data = webpush.data { try validateData(data, path: "message.webpush.data") }
        if let link = webpush.fcmOptions?.link, !link.lowercased().hasPrefix("https://") {
            throw invalid("message.webpush.fcm_options.link", "\"\(link)\" is not an HTTPS URL")
        }
        if let label = webpush.fcmOptions?.analyticsLabel {
            try validateAnalyticsLabel(label, path: "message.webpush.fcm_options.analytics_label")
        }
    }

    private static func validateEnum(_ value: String?, path: String, allowed: [String]) throws(PushError) {
        if let value, !allowed.contains(value) {
            throw invalid(path, "\"\(value)\" is not one of \(allowed.joined(separator: ", "))")
        }
    }

    private static func isHexColor(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 7 && bytes[0] == UInt8(ascii: "#") && bytes.dropFirst().allSatisfy(\.isHexDigit)
    }

    static func invalid(_ path: String, _ reason: String) -> PushError {
        PushError(code: .invalidArgument, message: "Invalid value at '\(path)': \(reason)", field: path)
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
