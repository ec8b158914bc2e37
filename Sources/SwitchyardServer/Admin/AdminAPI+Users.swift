import BSON
import DocumentStore
import Switchyard

/// The app's users as the client API keeps them in `local.switchyard_users`, each with its custom user data.
///
/// - `GET /users?limit=` → `{users: [{_id, type, identities: [{id, provider_type}], data, createdAt?,
///   lastLoginAt?, customData?}]}`, oldest first (`limit` default 100, at most 1,000)
extension AdminAPI {
    static let usersDatabase = "local"
    static let usersCollection = "switchyard_users"

    func addUserRoutes(to routes: inout AdminRoutes) {
        let store = app.store
        let customUserData = app.configuration.definition.auth.customUserData.flatMap { $0.enabled ? $0 : nil }
        routes.add("GET", "/users") { request, _ in
            let limit = try request.integerArgument("limit", default: 100, in: 1...1000)
            let users = try await store.database(Self.usersDatabase).collection(Self.usersCollection)
                .find([:], options: FindOptions(sort: ["createdAt": 1, "_id": 1], limit: limit)).toArray()
            var answer: [BSON] = []
            for var user in users {
                if let customUserData, let id = user["_id"] {
                    let data = try await store.database(customUserData.database)
                        .collection(customUserData.collection).findOne([customUserData.userIdField: id])
                    if let data { user.append("customData", .document(data)) }
                }
                answer.append(.document(user))
            }
            return .json(["users": .array(answer)])
        }
    }
}
