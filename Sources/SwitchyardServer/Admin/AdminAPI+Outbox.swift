import BSON
import DocumentStore
import Messaging
import Switchyard

/// The push messages the outbox recorded instead of delivering, and the devices they were meant for.
///
/// - `GET /outbox?limit=` → `{messages: [entry]}`, the newest `limit` (default 100, at most 1,000) oldest first
/// - `GET /outbox/events` → a server-sent `message` event per new entry
/// - `GET /devices` → `{devices: [{token, platform?, userId?, topics}]}`: registration tokens registered with a
///   platform, found in the users' custom data (fields whose name contains "token", as the example app's
///   `FCMToken`), subscribed to a topic through the FCM emulator, or sent to; `platform`: what the token was
///   registered with (`ios`, `android`, `web`); `topics`: what each is subscribed to
/// - `PUT /devices/{token}` with `{platform: "ios" | "android" | "web" | null}` → the device: registers the
///   token's platform (null forgets it), which decides the views the outbox records for it
///
/// An entry is `{name, target: {token|topic|condition}, time, request, payload?, ios?, android?, web?,
/// reachedTokens, platforms?, error?}` (see `OutboxEntry`): `ios`, `android` and `web` are what each
/// platform's app receives.
extension AdminAPI {
    func addOutboxRoutes(to routes: inout RouterGroup) {
        let app = self.app
        routes.add("GET", "/outbox") { request, _ in
            let limit = try request.integerArgument("limit", default: 100, in: 1...1000)
            let entries = try await app.outboxLog.entries(limit: limit)
            return .json(["messages": .array(entries.map { .document($0.document) })])
        }
        routes.add("GET", "/outbox/events") { _, _ in
            Self.events(from: app.outboxLog.follow()) { entry in
                LiveEvent(name: "message", id: entry.name, data: entry.document.extendedJSON(mode: .relaxed))
            }
        }
        routes.add("GET", "/devices") { _, _ in
            .json(["devices": .array(try await Self.devices(of: app).map { .document($0) })])
        }
        routes.add("PUT", "/devices/{token}") { request, parameters in
            let token = parameters["token"] ?? ""
            guard !token.isEmpty else { throw APIError.badRequest("the path names no registration token") }
            let value = try request.bodyDocument()["platform"]
            let platform = value?.stringValue.flatMap(DevicePlatform.init(rawValue:))
            guard platform != nil || value == .null else {
                throw APIError.badRequest("'platform' must be \"ios\", \"android\", \"web\" or null")
            }
            try await app.pushOutbox.devices.register(token, platform: platform)
            return .json(Self.device(token, platform: platform, userId: nil, topics: app.pushOutbox.topics))
        }
    }

    /// How many recent outbox entries are searched for tokens messages went to.
    static let deviceSearchDepth = 500

    /// `{token, platform?, userId?, topics}`.
    static func device(_ token: String, platform: DevicePlatform?, userId: BSON?, topics: TopicSubscriptions)
        -> BSONDocument
    {
        var device: BSONDocument = ["token": .string(token)]
        if let platform { device.append("platform", .string(platform.rawValue)) }
        if let userId { device.append("userId", userId) }
        device.append("topics", .array(topics.topics(of: token).sorted().map { .string($0) }))
        return device
    }

    /// Every registration token the app knows, once each: from custom user data first (with the user's id), then
    /// topic subscribers, tokens (and FIDs) messages were sent to, and tokens registered with a platform only.
    static func devices(of app: SwitchyardApp) async throws -> [BSONDocument] {
        let topics = app.pushOutbox.topics
        let platforms = app.pushOutbox.devices.all
        var devices: [BSONDocument] = []
        var seen: Set<String> = []
        func add(_ token: String, userId: BSON?) {
            guard !token.isEmpty, seen.insert(token).inserted else { return }
            devices.append(device(token, platform: platforms[token], userId: userId, topics: topics))
        }
        if let customUserData = app.configuration.definition.auth.customUserData, customUserData.enabled {
            let documents = try await app.store.database(customUserData.database)
                .collection(customUserData.collection).find().toArray()
            for document in documents {
                for (key, value) in document where key.lowercased().contains("token") {
                    let tokens = value.arrayValue?.compactMap(\.stringValue) ?? value.stringValue.map { [$0] } ?? []
                    for token in tokens { add(token, userId: document[customUserData.userIdField]) }
                }
            }
        }
        for token in Set(topics.all.values.joined()).sorted() { add(token, userId: nil) }
        for entry in try await app.outboxLog.entries(limit: deviceSearchDepth) {
            switch entry.target {
            case .token(let device), .fid(let device): add(device, userId: nil)
            case .topic, .condition: break
            }
        }
        for token in platforms.keys.sorted() { add(token, userId: nil) }
        return devices
    }
}
