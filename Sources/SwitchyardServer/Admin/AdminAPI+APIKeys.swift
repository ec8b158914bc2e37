import BSON
import Switchyard

/// The app's server API keys, each with the server user (`type: "server"`) it logs in as, as App Services'
/// admin API makes them; the `api-key` provider must be enabled.
///
/// - `POST   /apiKeys` `{name}` → 201 `{_id, key, name, disabled, userId}`, the only answer that holds the key
/// - `GET    /apiKeys` → `{apiKeys: [{_id, name, disabled, userId}]}`, oldest first
/// - `DELETE /apiKeys/{id}` → `{deleted: id}`: the key and its server user go (their sessions end at once)
/// - `PUT    /apiKeys/{id}/enable`, `/disable` → `{_id, name, disabled, userId}`
extension AdminAPI {
    func addAPIKeyRoutes(to routes: inout RouterGroup) {
        let (users, auth) = (self.users, app.configuration.definition.auth)
        routes.add("POST", "/apiKeys") { request, _ in
            try Self.ensureAPIKeys(enabledIn: auth)
            guard let name = try request.extendedJSONBody()["name"]?.stringValue else {
                throw APIError.missingParameter("name")
            }
            let made = try await users.createServerAPIKey(named: name)
            return .json(Self.keyDocument(made.key, value: made.value), status: 201)
        }
        routes.add("GET", "/apiKeys") { _, _ in
            .json(["apiKeys": .array(try await users.apiKeys(ofUser: nil).map { .document(Self.keyDocument($0)) })])
        }
        routes.add("DELETE", "/apiKeys/{id}") { _, parameters in
            let id = parameters["id"] ?? ""
            try await users.deleteAPIKey(id: id, ofUser: nil)
            return .json(["deleted": .string(id)])
        }
        for (action, disabled) in [("enable", false), ("disable", true)] {
            routes.add("PUT", "/apiKeys/{id}/\(action)") { _, parameters in
                let id = parameters["id"] ?? ""
                try await users.setAPIKey(id: id, ofUser: nil, disabled: disabled)
                return .json(Self.keyDocument(try await users.apiKey(id: id, ofUser: nil)))
            }
        }
    }

    private static func ensureAPIKeys(enabledIn auth: AuthSettings) throws(APIError) {
        guard auth.enables(.apiKey) else {
            throw APIError(
                status: 400, code: "AuthProviderNotFound",
                message: "enable the api-key provider (auth.providers in triggers.yaml) before making API keys")
        }
    }

    private static func keyDocument(_ key: APIKey, value: String? = nil) -> BSONDocument {
        var document = key.clientDocument(key: value)
        document.append("userId", .string(key.userId))
        return document
    }
}
