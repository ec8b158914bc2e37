import BSON
import Switchyard

/// The app's users (the client API's `UserDirectory`), each with its custom user data.
///
/// - `GET    /users?limit=&skip=` → `{users: [user], count}`, newest first (`limit` default 100, at most 1,000)
/// - `GET    /users/{id}` → user
/// - `DELETE /users/{id}` → `{deleted: id}`: the user, their credentials and sessions go (their tokens stop
///   working at once) and the app's `delete` authentication triggers fire
///
/// A user is `{_id, type, identities: [{id, provider_type}], data, createdAt, lastLoginAt?, customData?}`.
extension AdminAPI {
    func addUserRoutes(to routes: inout RouterGroup) {
        let users = self.users
        routes.add("GET", "/users") { request, _ in
            let records = try await users.list(
                limit: try request.integerArgument("limit", default: 100, in: 1...1000),
                skip: try request.integerArgument("skip", default: 0, in: 0...Int(Int32.max)))
            var listed: [BSON] = []
            for record in records { listed.append(.document(try await Self.userDocument(record, users))) }
            return .json(["users": .array(listed), "count": .int64(Int64(try await users.count()))])
        }
        routes.add("GET", "/users/{id}") { _, parameters in
            let id = parameters["id"] ?? ""
            guard let record = try await users.user(id: id) else { throw APIError.userNotFound(id) }
            return .json(try await Self.userDocument(record, users))
        }
        routes.add("DELETE", "/users/{id}") { _, parameters in
            let id = parameters["id"] ?? ""
            try await users.delete(id: id)
            return .json(["deleted": .string(id)])
        }
    }

    private static func userDocument(_ record: UserRecord, _ users: UserDirectory) async throws -> BSONDocument {
        var document = record.document
        let customData = try await users.customData(forUser: record.id)
        if !customData.isEmpty { document.append("customData", .document(customData)) }
        return document
    }
}
