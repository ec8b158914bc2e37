import BSON
import DocumentStore
import Messaging
import Switchyard

/// The push messages the outbox recorded instead of delivering, and the devices they were meant for.
///
/// - `GET /outbox?limit=` → `{messages: [entry]}`, the newest `limit` (default 100, at most 1,000) oldest first
/// - `GET /outbox/events` → a server-sent `message` event per new entry
/// - `GET /devices` → `{devices: [{token, userId?, topics}]}`: registration tokens found in the users' custom
///   data (fields whose name contains "token", as the example app's `FCMToken`), subscribed to a topic through
///   the FCM emulator, or sent to; `topics`: what each is subscribed to
///
/// An entry is `{name, target: {token|topic|condition}, time, request, payload?, reachedTokens, error?}` (see
/// `OutboxEntry`).
extension AdminAPI {
    func addOutboxRoutes(to routes: inout AdminRoutes) {
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
    }

    /// How many recent outbox entries are searched for tokens messages went to.
    static let deviceSearchDepth = 500

    /// Every registration token the app knows, once each: from custom user data first (with the user's id), then
    /// topic subscribers, then tokens messages were sent to.
    static func devices(of app: SwitchyardApp) async throws -> [BSONDocument] {
        let topics = app.pushOutbox.topics
        var devices: [BSONDocument] = []
        var seen: Set<String> = []
        func add(_ token: String, userId: BSON?) {
            guard !token.isEmpty, seen.insert(token).inserted else { return }
            var device: BSONDocument = ["token": .string(token)]
            if let userId { device.append("userId", userId) }
            device.append("topics", .array(topics.topics(of: token).sorted().map { .string($0) }))
            devices.append(device)
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
            if case .token(let token) = entry.target { add(token, userId: nil) }
        }
        return devices
    }
}
