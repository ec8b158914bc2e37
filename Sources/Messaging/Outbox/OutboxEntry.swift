import BSON

/// One message the outbox accepted (or refused on purpose through fault injection), as FCM received it and as a
/// device would have received it.
public struct OutboxEntry: Sendable, Equatable {
    /// `projects/<project>/messages/<numeric id>`: what `send` returned. Failed entries are named too, so they can be
    /// told apart, though FCM never returns a name for a failure.
    public var name: String
    public var target: PushMessage.Target
    /// The send request as FCM would have received it: `{"message":{…}}` (see `PushMessage.document`).
    public var request: BSONDocument
    /// A platform-neutral summary of what a device shows, for listings; nil when the message was not delivered.
    /// What each platform's app receives exactly is in `ios`, `android` and `web`. The shape of the FCM client
    /// SDKs' message payload (the web SDK's names), with the Android overrides applied:
    /// ```
    /// {"messageId": "<numeric id>",
    ///  "from": "/topics/<topic>" for topic messages, else the sender id,
    ///  "collapseKey": android.collapse_key (only when set),
    ///  "notification": {"title","body","image","icon","color","sound","tag","clickAction","channelId"}
    ///                  (message.notification overridden field by field by android.notification; only when set),
    ///  "data": android.data if set, else data (always present, maybe empty)}
    /// ```
    public var payload: BSONDocument?
    /// What an iOS app receives (see `IOSDelivery`); set when the message reached an iOS device or a device of
    /// unknown platform, or no registered device at all (then the views say what a subscriber would get).
    public var ios: IOSDelivery?
    /// What an Android app receives (see `AndroidDelivery`); set as `ios` is, for Android devices.
    public var android: AndroidDelivery?
    /// What a web app receives (see `WebDelivery`); set when the message reached a device registered as web.
    public var web: WebDelivery?
    /// The platforms of the reached tokens registered with one (see `DeviceRegistry`).
    public var platforms: [String: DevicePlatform]
    /// The registered devices the message reached, sorted: the token itself for a token message, the
    /// subscribers for a topic, the tokens whose topics satisfy a condition (see `TopicSubscriptions`); empty
    /// when the message was not delivered.
    public var reachedTokens: [String]
    public var time: BSONDate
    /// Why the message was not delivered (an injected `UNREGISTERED` or `UNAVAILABLE`).
    public var error: PushError?

    package init(
        name: String, target: PushMessage.Target, request: BSONDocument, payload: BSONDocument?, time: BSONDate,
        error: PushError? = nil, reachedTokens: [String]? = nil, ios: IOSDelivery? = nil,
        android: AndroidDelivery? = nil, web: WebDelivery? = nil, platforms: [String: DevicePlatform] = [:]
    ) {
        self.name = name
        self.target = target
        self.request = request
        self.payload = payload
        self.ios = ios
        self.android = android
        self.web = web
        self.platforms = platforms
        self.time = time
        self.reachedTokens = reachedTokens ?? Self.reachedWithoutSubscriptions(target, delivered: error == nil)
        self.error = error
    }

    public var isDelivered: Bool { error == nil }

    /// The views recorded for `token`: its registered platform's, or iOS and Android for a token registered
    /// without one.
    public func platforms(of token: String) -> [DevicePlatform] {
        platforms[token].map { [$0] } ?? [.ios, .android]
    }

    /// The entry for storing or printing, fields in this order:
    /// `{"name", "target": {"token"|"topic"|"condition"|"fid": …}, "time", "request", "payload"?, "ios"?,
    /// "android"?, "web"?, "reachedTokens": […], "platforms"?: {"ios"|"android"|"web": [token, …]},
    /// "error"?: {"code","message"}}`.
    package var document: BSONDocument {
        var document: BSONDocument = [
            "name": .string(name),
            "target": [target.fieldName: .string(target.value)],
            "time": .datetime(time),
            "request": .document(request),
        ]
        if let payload { document.append("payload", .document(payload)) }
        document.appendIfPresent("ios", ios?.document)
        document.appendIfPresent("android", android?.document)
        document.appendIfPresent("web", web?.document)
        document.append("reachedTokens", .array(reachedTokens.map { .string($0) }))
        if !platforms.isEmpty {
            var byPlatform = BSONDocument()
            for platform in DevicePlatform.allCases {
                let tokens = platforms.filter { $0.value == platform }.keys.sorted()
                if !tokens.isEmpty { byPlatform.append(platform.rawValue, .array(tokens.map { .string($0) })) }
            }
            document.append("platforms", .document(byPlatform))
        }
        if let error {
            document.append("error", ["code": .string(error.code.rawValue), "message": .string(error.message)])
        }
        return document
    }

    /// Reads an entry written by `document`; errors name the missing or mistyped field.
    package init(document: BSONDocument) throws(PushError) {
        func field(_ key: String) throws(PushError) -> BSON {
            guard let value = document[key] else { throw Self.malformed("missing field '\(key)'") }
            return value
        }
        guard case .string(let name) = try field("name") else { throw Self.malformed("'name' is not a string") }
        guard case .document(let targetDocument) = try field("target"), targetDocument.count == 1,
            case .string(let targetValue) = targetDocument.values[0]
        else { throw Self.malformed("'target' is not {token|topic|condition|fid: string}") }
        let target: PushMessage.Target
        switch targetDocument.keys[0] {
        case "token": target = .token(targetValue)
        case "topic": target = .topic(targetValue)
        case "condition": target = .condition(targetValue)
        case "fid": target = .fid(targetValue)
        case let other: throw Self.malformed("'target' has unknown kind '\(other)'")
        }
        guard case .datetime(let time) = try field("time") else { throw Self.malformed("'time' is not a date") }
        guard case .document(let request) = try field("request") else {
            throw Self.malformed("'request' is not a document")
        }
        var payload: BSONDocument?
        if let value = document["payload"] {
            guard case .document(let p) = value else { throw Self.malformed("'payload' is not a document") }
            payload = p
        }
        var error: PushError?
        if let value = document["error"] {
            guard case .document(let e) = value, case .string(let code)? = e["code"],
                case .string(let message)? = e["message"]
            else { throw Self.malformed("'error' is not {code: string, message: string}") }
            error = PushError(code: PushError.Code(rawValue: code), message: message)
        }
        var reachedTokens: [String]?
        if let value = document["reachedTokens"] {
            guard case .array(let items) = value else { throw Self.malformed("'reachedTokens' is not an array") }
            reachedTokens = try items.map { item throws(PushError) in
                guard case .string(let token) = item else { throw Self.malformed("'reachedTokens' holds a non-string") }
                return token
            }
        }
        var platforms: [String: DevicePlatform] = [:]
        for (name, tokens) in document["platforms"]?.documentValue ?? [:] {
            guard let platform = DevicePlatform(rawValue: name) else { continue }
            for token in tokens.stringArray ?? [] { platforms[token] = platform }
        }
        self.init(
            name: name, target: target, request: request, payload: payload, time: time, error: error,
            reachedTokens: reachedTokens, ios: document["ios"]?.documentValue.map(IOSDelivery.init(document:)),
            android: document["android"]?.documentValue.map(AndroidDelivery.init(document:)),
            web: document["web"]?.documentValue.map(WebDelivery.init(document:)), platforms: platforms)
    }

    /// What an entry reached when no one says (an entry stored without `reachedTokens`, or made without them): a
    /// delivered token or FID message its token or FID; a topic's or condition's subscribers are known only to
    /// the sender that resolved them, so none.
    private static func reachedWithoutSubscriptions(_ target: PushMessage.Target, delivered: Bool) -> [String] {
        switch target {
        case .token(let device), .fid(let device): delivered ? [device] : []
        case .topic, .condition: []
        }
    }

    private static func malformed(_ reason: String) -> PushError {
        PushError(code: .invalidArgument, message: "Malformed outbox entry: \(reason)")
    }
}
