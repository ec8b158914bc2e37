import BSON
import Switchyard

extension ClientAPI {
    /// `POST /app/{app}/auth/providers/{anon-user|local-userpass|api-key}/login`: a new anonymous user, the user
    /// whose `{username, password}` these are, or the user of the API key `{key}`; answers `{access_token,
    /// refresh_token, user_id, device_id}`.
    func login(_ request: ServerRequest, provider name: String) async throws -> ServerResponse {
        guard let provider = AuthenticationProvider(rawValue: name), Self.servedProviders.contains(provider) else {
            throw APIError(
                status: 404, code: "AuthProviderNotFound",
                message:
                    "authentication via '\(name.prefix(64))' is unsupported (Switchyard serves anon-user, local-userpass and api-key)"
            )
        }
        try ensureEnabled(provider)
        if request.query["link"] == "true" {
            throw APIError.badRequest("linking identities to an existing user is not supported by Switchyard")
        }
        let body = try request.extendedJSONBody()
        let user: UserRecord
        switch provider {
        case .anonymous:
            try throttle.beginAnonymousLogin(from: request.remoteAddress)
            user = try await users.createAnonymousUser()
        case .apiKey:
            guard let key = body["key"]?.stringValue else { throw APIError.missingParameter("key") }
            user = try await users.authenticate(apiKey: key)
        default:
            guard let email = (body["username"] ?? body["email"])?.stringValue,
                let password = body["password"]?.stringValue
            else { throw APIError.missingParameter("username and password") }
            try throttle.beginPasswordAttempt(from: request.remoteAddress, account: email)
            user = try await users.authenticate(email: email, password: password)
            throttle.passwordSucceeded(account: email)
        }
        let loggedIn = try await users.recordLogin(user, provider: provider.rawValue)
        let session = try await users.openSession(forUser: loggedIn.id)
        let customData = try await users.customData(forUser: loggedIn.id)
        return .json([
            "access_token": .string(tokens.accessToken(for: loggedIn.id, session: session, customData: customData)),
            "refresh_token": .string(tokens.refreshToken(for: session)), "user_id": .string(loggedIn.id),
            "device_id": .string(session.deviceId),
        ])
    }

    /// `POST /app/{app}/auth/providers/local-userpass/register` with `{email, password}`: 201, empty.
    func register(_ request: ServerRequest) async throws -> ServerResponse {
        try ensureEnabled(.emailPassword)
        let body = try request.extendedJSONBody()
        guard let email = body["email"]?.stringValue, let password = body["password"]?.stringValue else {
            throw APIError.missingParameter("email and password")
        }
        try throttle.beginPasswordAttempt(from: request.remoteAddress, account: nil)
        _ = try await users.register(email: email, password: password)
        return .empty(status: 201)
    }

    /// `GET /auth/profile` (access token): `{user_id, domain_id, identities: [{id, provider_type}], data, type,
    /// custom_data}`.
    func profile(_ request: ServerRequest) async throws -> ServerResponse {
        let caller = try await tokens.authenticate(accessToken: request.bearerToken)
        let user = caller.user
        return .json([
            "user_id": .string(user.id), "domain_id": .string(domainId),
            "identities": .array(
                user.identities.map { ["id": .string($0.id), "provider_type": .string($0.providerType)] }),
            "data": .document(user.data), "type": .string(user.type),
            "custom_data": .document(try await users.customData(forUser: user.id)),
        ])
    }

    /// `POST /auth/session` (refresh token): 201 `{access_token}` with the user's current custom data.
    func refreshSession(_ request: ServerRequest) async throws -> ServerResponse {
        let caller = try await tokens.authenticate(refreshToken: request.bearerToken)
        let customData = try await users.customData(forUser: caller.user.id)
        let token = tokens.accessToken(for: caller.user.id, session: caller.session, customData: customData)
        return .json(["access_token": .string(token)], status: 201)
    }

    /// `DELETE /auth/session` (refresh token): logs out; the refresh token and its access tokens stop working.
    func endSession(_ request: ServerRequest) async throws -> ServerResponse {
        let caller = try await tokens.authenticate(refreshToken: request.bearerToken)
        try await users.revokeSession(id: caller.session.id)
        return .empty(status: 204)
    }

    /// `DELETE /auth/delete` (access token): deletes the calling user.
    func deleteUser(_ request: ServerRequest) async throws -> ServerResponse {
        let caller = try await tokens.authenticate(accessToken: request.bearerToken)
        try await users.delete(id: caller.user.id)
        return .empty(status: 204)
    }

    /// The providers users log in with here.
    static let servedProviders: Set<AuthenticationProvider> = [.anonymous, .emailPassword, .apiKey]

    /// Providers are enabled by `auth.providers` in `triggers.yaml` (see `AuthSettings.enables`).
    func ensureEnabled(_ provider: AuthenticationProvider) throws(APIError) {
        guard app.configuration.definition.auth.enables(provider) else {
            throw APIError(
                status: 404, code: "AuthProviderNotFound",
                message:
                    "authentication via '\(provider.rawValue)' is not enabled (see auth.providers in triggers.yaml)")
        }
    }
}

extension APIError {
    static func missingParameter(_ what: String) -> APIError {
        APIError(status: 400, code: "MissingParameter", message: "the request body must give \(what) as strings")
    }
}
