import BSON
import Foundation

/// The signed JWT a service account trades for an access token (RFC 7523), checked the way Google's token
/// endpoint checks it as far as the emulator can: a compact JWS whose header says RS256 and whose signature
/// segment is a plausible RSA signature; claims `iss`, `scope` (naming Firebase Cloud Messaging or
/// cloud-platform), `aud` (one of the token endpoint URLs the caller accepts: where the assertion was sent, or
/// Google's for a key that names it), and `iat`/`exp` at most an hour apart and around now.
///
/// The signature itself is not verified: the emulator does not know the service account's public key.
struct JWTBearerAssertion: Sendable {
    var issuer: String
    var scopes: [String]
    var audience: String
    var issuedAt: Int64
    var expires: Int64

    static let acceptedScopes = [
        "https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform",
    ]
    /// Google allows this much clock difference between the signer and itself.
    static let clockSkew: Int64 = 300

    /// - Parameter audiences: the `aud` values accepted, first the endpoint's own URL.
    /// - Throws: `OAuthError` as Google's token endpoint words it.
    init(_ text: String, now: Int64, audiences: [String]) throws(OAuthError) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .invalidGrant("Invalid JWT: the assertion must have three '.'-separated parts, found \(parts.count)")
        }
        let header = try Self.json(parts[0], "header")
        guard header["alg"] == "RS256" else {
            let alg = header["alg"]?.stringValue ?? "none"
            throw .invalidGrant("Invalid JWT: the header's alg must be RS256, found \(alg)")
        }
        // An RSA signature is as long as the key's modulus: 1024 to 8192 bits.
        guard let signature = Self.base64URL(parts[2]), (128...1024).contains(signature.count) else {
            throw .invalidGrant("Invalid JWT Signature.")
        }
        let claims = try Self.json(parts[1], "claim set")
        guard case .string(let issuer)? = claims["iss"], !issuer.isEmpty else {
            throw .invalidGrant("Invalid JWT: the claim set has no 'iss' (the service account's email)")
        }
        guard case .string(let scope)? = claims["scope"], !scope.isEmpty else {
            throw OAuthError(error: "invalid_scope", description: "Empty or missing scope not allowed.")
        }
        let scopes = scope.split(separator: " ").map(String.init)
        guard scopes.contains(where: Self.acceptedScopes.contains) else {
            throw OAuthError(
                error: "invalid_scope",
                description:
                    "The scope must include \(Self.acceptedScopes.joined(separator: " or ")) to send messages; found: \(scope)"
            )
        }
        guard case .string(let audience)? = claims["aud"], audiences.contains(audience) else {
            let found = claims["aud"].map { $0.extendedJSON(mode: .relaxed) } ?? "none"
            throw .invalidGrant(
                "Invalid JWT: Failed audience check. 'aud' must be this token endpoint's URL (the key's token_uri): \(audiences.joined(separator: " or ")), found \(found)"
            )
        }
        guard let issuedAt = Self.seconds(claims["iat"]), let expires = Self.seconds(claims["exp"]) else {
            throw .invalidGrant("Invalid JWT: 'iat' and 'exp' must be numbers of seconds since 1970")
        }
        guard expires > issuedAt, expires - issuedAt <= 3600, issuedAt <= now + Self.clockSkew,
            expires > now - Self.clockSkew
        else {
            throw .invalidGrant(
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
            )
        }
        self.issuer = issuer
        self.scopes = scopes
        self.audience = audience
        self.issuedAt = issuedAt
        self.expires = expires
    }

    private static func json(_ part: Substring, _ what: String) throws(OAuthError) -> BSONDocument {
        guard let bytes = base64URL(part), let document = try? PlainJSON.parseDocument(bytes) else {
            throw .invalidGrant("Invalid JWT: the \(what) is not base64url-encoded JSON")
        }
        return document
    }

    private static func base64URL(_ part: Substring) -> [UInt8]? {
        guard !part.isEmpty, part.utf8.count <= 16_384 else { return nil }
        var text = String(part.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while text.utf8.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text).map { Array($0) }
    }

    private static func seconds(_ value: BSON?) -> Int64? {
        switch value {
        case .int32(let v)?: Int64(v)
        case .int64(let v)?: v
        case .double(let v)? where v.isFinite && abs(v) < 1e15: Int64(v)
        default: nil
        }
    }
}

/// An error of the OAuth2 token endpoint, in Google's shape: `{"error": "invalid_grant", "error_description": …}`.
struct OAuthError: Error, Sendable, Equatable {
    var error: String
    var description: String
    var status = 400

    static func invalidGrant(_ description: String) -> OAuthError {
        OAuthError(error: "invalid_grant", description: description)
    }

    static func invalidRequest(_ description: String) -> OAuthError {
        OAuthError(error: "invalid_request", description: description)
    }

    var response: ServerResponse {
        var response = ServerResponse.json(
            ["error": .string(error), "error_description": .string(description)], status: status)
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }
}
