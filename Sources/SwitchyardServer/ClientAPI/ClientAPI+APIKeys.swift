import BSON
import Switchyard

/// The user API keys of the caller, as realm-core's `UserAPIKeyProviderClient` manages them, each request
/// authenticated with the user's refresh token:
///
/// - `POST   /auth/api_keys` `{name}` → 201 `{_id, key, name, disabled}`, the only answer that holds the key
/// - `GET    /auth/api_keys` → `[{_id, name, disabled}]`, oldest first
/// - `GET    /auth/api_keys/{id}` → `{_id, name, disabled}`
/// - `DELETE /auth/api_keys/{id}` → 204
/// - `PUT    /auth/api_keys/{id}/enable`, `/disable` → 204
///
/// The `api-key` provider must be enabled (`auth.providers` in `triggers.yaml`, `api-key` in an export's
/// `auth/providers.json`), as App Services asks before keys can be made.
extension ClientAPI {
    func addAPIKeyRoutes(to api: inout RouterGroup) {
        api.add("POST", "/auth/api_keys") { [self] request, _ in
            let caller = try await apiKeyOwner(request)
            guard let name = try request.extendedJSONBody()["name"]?.stringValue else {
                throw APIError.missingParameter("name")
            }
            let made = try await users.createAPIKey(named: name, forUser: caller)
            return .json(made.key.clientDocument(key: made.value), status: 201)
        }
        api.add("GET", "/auth/api_keys") { [self] request, _ in
            let keys = try await users.apiKeys(ofUser: try await apiKeyOwner(request))
            return .json(BSON.array(keys.map { .document($0.clientDocument()) }).extendedJSONBytes(mode: .relaxed))
        }
        api.add("GET", "/auth/api_keys/{id}") { [self] request, parameters in
            let key = try await users.apiKey(id: parameters["id"] ?? "", ofUser: try await apiKeyOwner(request))
            return .json(key.clientDocument())
        }
        api.add("DELETE", "/auth/api_keys/{id}") { [self] request, parameters in
            try await users.deleteAPIKey(id: parameters["id"] ?? "", ofUser: try await apiKeyOwner(request))
            return .empty(status: 204)
        }
        for (action, disabled) in [("enable", false), ("disable", true)] {
            api.add("PUT", "/auth/api_keys/{id}/\(action)") { [self] request, parameters in
                let owner = try await apiKeyOwner(request)
                try await users.setAPIKey(id: parameters["id"] ?? "", ofUser: owner, disabled: disabled)
                return .empty(status: 204)
            }
        }
    }

    /// The id of the user whose refresh token the request carries, once the provider is known to be enabled.
    private func apiKeyOwner(_ request: ServerRequest) async throws -> String {
        try ensureEnabled(.apiKey)
        return try await tokens.authenticate(refreshToken: request.bearerToken).user.id
    }
}
