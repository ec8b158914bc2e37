import BSON
import Messaging

/// Compact JSON Web Tokens signed with HS256 (HMAC-SHA256). Verification accepts exactly one algorithm, so a
/// token claiming `alg: none` or any other algorithm is refused before its signature is looked at.
struct JSONWebToken {
    /// Longer tokens are refused unread; ours are well under 1 KB plus the user's custom data.
    static let maximumLength = 64 * 1024
    private static let header: BSONDocument = ["alg": "HS256", "typ": "JWT"]

    static func sign(_ claims: BSONDocument, key: SigningKey) -> String {
        let signingInput =
            Base64URL.encode(header.extendedJSONBytes(mode: .relaxed)) + "."
            + Base64URL.encode(claims.extendedJSONBytes(mode: .relaxed))
        let signature = HMACSHA256.code(key: key.bytes, message: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The claims of a token whose signature `key` made.
    /// - Throws: `TokenRejection` saying what is wrong (never echoing the token).
    static func verifiedClaims(_ token: String, key: SigningKey) throws(TokenRejection) -> BSONDocument {
        guard token.utf8.count <= maximumLength else { throw TokenRejection("the token is too long") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw TokenRejection("the token is not a signed JWT (header.payload.signature)")
        }
        guard let headerBytes = Base64URL.decode(parts[0]),
            let header = try? ExtendedJSON.parseDocument(headerBytes)
        else { throw TokenRejection("the token's header is not base64url-encoded JSON") }
        guard header["alg"] == "HS256" else {
            throw TokenRejection("the token's algorithm is not HS256")
        }
        guard header["crit"] == nil else { throw TokenRejection("the token has critical header parameters") }
        guard let signature = Base64URL.decode(parts[2]), !signature.isEmpty else {
            throw TokenRejection("the token has no signature")
        }
        let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        let expected = HMACSHA256.code(key: key.bytes, message: signingInput)
        guard Cryptography.constantTimeEquals(signature, expected) else {
            throw TokenRejection("the token's signature does not verify")
        }
        guard let payload = Base64URL.decode(parts[1]), let claims = try? ExtendedJSON.parseDocument(payload) else {
            throw TokenRejection("the token's payload is not base64url-encoded JSON")
        }
        return claims
    }
}

/// Why a token was refused; the client API answers 401 `InvalidSession` with it.
struct TokenRejection: Error, Sendable, Equatable, CustomStringConvertible {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { reason }
}

/// The HMAC key tokens are signed with. Its description never shows the bytes, so it cannot leak into a log
/// line or an error through string interpolation.
struct SigningKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let bytes: [UInt8]
    var description: String { "SigningKey(\(bytes.count) bytes, redacted)" }
    var debugDescription: String { description }
}
