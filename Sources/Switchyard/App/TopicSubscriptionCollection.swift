import BSON
import DocumentStore
import Messaging

/// Where the FCM emulator's topic subscriptions survive restarts: `local.topicSubscriptions`, one document per
/// topic, `{_id: "<topic>", tokens: ["<token>", …]}` (not change-logged, like the rest of `local`).
struct TopicSubscriptionCollection: Sendable {
    static let database = "local"
    static let collection = "topicSubscriptions"

    private let collection: DocumentCollection

    init(store: DocumentStore) {
        collection = store.database(Self.database).collection(Self.collection)
    }

    /// Tokens by topic, as the last run left them.
    func load() async throws -> [String: Set<String>] {
        var subscriptions: [String: Set<String>] = [:]
        for document in try await collection.find([:]).toArray() {
            guard case .string(let topic)? = document["_id"], case .array(let tokens)? = document["tokens"] else {
                continue
            }
            subscriptions[topic] = Set(tokens.compactMap(\.stringValue))
        }
        return subscriptions
    }

    /// The `TopicSubscriptions` sink.
    func save(_ change: TopicSubscriptions.Change) async throws {
        switch change {
        case .subscribed(let topic, let tokens):
            try await collection.updateOne(
                ["_id": .string(topic)],
                ["$addToSet": ["tokens": ["$each": .array(tokens.map { .string($0) })]]], upsert: true)
        case .unsubscribed(let topic, let tokens):
            try await collection.updateOne(
                ["_id": .string(topic)], ["$pull": ["tokens": ["$in": .array(tokens.map { .string($0) })]]])
            try await collection.deleteOne(["_id": .string(topic), "tokens": ["$size": 0]])
        }
    }
}
