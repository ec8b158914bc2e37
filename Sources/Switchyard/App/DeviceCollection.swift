import BSON
import DocumentStore
import Messaging

/// Where the platforms devices registered with survive restarts: `local.devices`, one document per token,
/// `{_id: "<token>", platform: "ios" | "android" | "web"}` (not change-logged, like the rest of `local`).
struct DeviceCollection: Sendable {
    static let database = "local"
    static let collection = "devices"

    private let collection: DocumentCollection

    init(store: DocumentStore) {
        collection = store.database(Self.database).collection(Self.collection)
    }

    /// Platforms by token, as the last run left them.
    func load() async throws -> [String: DevicePlatform] {
        var platforms: [String: DevicePlatform] = [:]
        for document in try await collection.find([:]).toArray() {
            guard case .string(let token)? = document["_id"],
                let platform = document["platform"]?.stringValue.flatMap(DevicePlatform.init(rawValue:))
            else { continue }
            platforms[token] = platform
        }
        return platforms
    }

    /// The `DeviceRegistry` sink.
    func save(_ change: DeviceRegistry.Change) async throws {
        if let platform = change.platform {
            try await collection.updateOne(
                ["_id": .string(change.token)], ["$set": ["platform": .string(platform.rawValue)]], upsert: true)
        } else {
            try await collection.deleteOne(["_id": .string(change.token)])
        }
    }
}
