import BSON
import Foundation
import Messaging

extension FCMEmulator {
    static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let tokenPath = "/oauth2/token"

    /// `POST /oauth2/token`: trades a service account's signed JWT for an access token (see
    /// `JWTBearerAssertion` for what is checked). The assertion's `aud` must be this endpoint as the request
    /// reached it (`http://<Host>/oauth2/token`, what a key whose `token_uri` points here signs), or Google's own
    /// token URI, which a key downloaded from Google names; any other audience is `invalid_grant`, as Google
    /// answers an assertion meant for another endpoint.
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
            let own = request.headers["host"].map { "http://\($0)\(Self.tokenPath)" }
            let grant = try JWTBearerAssertion(
                assertion, now: Int64(Date().timeIntervalSince1970),
                audiences: [own, ServiceAccount.googleTokenURI].compactMap { $0 })
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
