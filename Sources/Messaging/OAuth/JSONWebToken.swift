import BSON
import Foundation

/// Compact JWS tokens: `base64url(header).base64url(claims).base64url(signature)`.
enum JSONWebToken {
    /// Signs `claims` with `key`; the header is `{"alg":…,"typ":"JWT"}` plus `kid` when given (APNs wants no
    /// `typ`: pass nil).
    static func sign(
        claims: BSONDocument, keyId: String?, key: SigningKey, type: String? = "JWT"
    ) throws(CredentialError) -> String {
        var header: BSONDocument = ["alg": .string(key.algorithm.rawValue)]
        if let type { header.append("typ", .string(type)) }
        if let keyId { header.append("kid", .string(keyId)) }
        let signingInput =
            base64URL(header.extendedJSONBytes(mode: .relaxed)) + "."
            + base64URL(claims.extendedJSONBytes(mode: .relaxed))
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + base64URL(signature)
    }

    /// Base64 with the URL alphabet and no padding (RFC 7515 §2).
    static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
