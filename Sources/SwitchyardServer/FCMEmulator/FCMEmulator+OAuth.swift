import BSON
import Foundation

extension FCMEmulator {
    static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// `POST /oauth2/token`: trades a service account's signed JWT for an access token (see
    /// `JWTBearerAssertion` for what is checked).
    func token(_ request: ServerRequest) -> ServerResponse {
        guard let fields = FormFields.parse(request.body) else {
            return OAuthError.invalidRequest("The body must be application/x-www-form-urlencoded").response
        }
        guard let grantType = fields["grant_type"], !grantType.isEmpty else {
            return OAuthError.invalidRequest("Missing required parameter: grant_type").response
        }
        guard grantType == Self.jwtBearerGrantType else {
            return OAuthError(error: "unsupported_grant_type", description: "Invalid grant_type: \(grantType)").response
        }
        guard let assertion = fields["assertion"], !assertion.isEmpty else {
            return OAuthError.invalidRequest("Missing required parameter: assertion").response
        }
        do {
            let grant = try JWTBearerAssertion(assertion, now: Int64(Date().timeIntervalSince1970))
            let token = accessTokens.issue(to: grant.issuer)
            let seconds = Int64(accessTokens.lifetime.components.seconds)
            var response = ServerResponse.json([
                "access_token": .string(token), "expires_in": .int64(seconds), "token_type": "Bearer",
            ])
            response.headers.append(("Cache-Control", "no-store"))
            return response
        } catch {
            return error.response
        }
    }
}
