import COpenSSL

/// A private key for signing JSON Web Tokens, read from PEM: an RSA key signs RS256 (Google's OAuth2 assertion),
/// a P-256 key ES256 (APNs provider tokens, from Apple's `.p8` file).
///
/// `@unchecked Sendable`: the `EVP_PKEY` is written once in `init` and only read afterwards; OpenSSL 3 allows one
/// key to sign on several threads at once, each signature using its own digest context.
package final class SigningKey: @unchecked Sendable {
    package enum Algorithm: String, Sendable {
        case rs256 = "RS256"
        case es256 = "ES256"
    }

    private let key: OpaquePointer
    /// RS256 for RSA keys, ES256 for P-256 keys.
    package let algorithm: Algorithm

    /// Reads a PEM private key (`BEGIN PRIVATE KEY`, `BEGIN RSA PRIVATE KEY`, `BEGIN EC PRIVATE KEY`).
    /// Encrypted keys are refused rather than prompting for a passphrase. `source` names the key in errors.
    package init(pem: String, source: String = "the private key") throws(CredentialError) {
        guard pem.contains("-----BEGIN") else {
            throw CredentialError("\(source) is not a PEM private key: it has no -----BEGIN line")
        }
        let parsed: OpaquePointer? = Array(pem.utf8).withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            // Never ask a terminal for a passphrase: an encrypted key is an error.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        guard let parsed else {
            let reason = Self.openSSLError() ?? "unreadable"
            throw CredentialError("\(source) is not a usable PEM private key (\(reason))")
        }
        switch EVP_PKEY_get_base_id(parsed) {
        case EVP_PKEY_RSA:
            algorithm = .rs256
        case EVP_PKEY_EC where EVP_PKEY_get_bits(parsed) == 256:
            algorithm = .es256
        default:
            EVP_PKEY_free(parsed)
            throw CredentialError("\(source) is neither an RSA key nor a P-256 elliptic-curve key")
        }
        key = parsed
    }

    /// A fresh key: RSA 2048 for RS256, P-256 for ES256 (for development credentials, such as the ones
    /// `switchyard serve` gives its own FCM client for its emulator).
    package static func generate(_ algorithm: Algorithm) throws(CredentialError) -> SigningKey {
        let made = algorithm == .rs256 ? copenssl_rsa_generate(2048) : copenssl_ec_p256_generate()
        guard let made else {
            throw CredentialError(
                "cannot make a \(algorithm.rawValue) key: \(openSSLError() ?? "unknown OpenSSL error")")
        }
        return SigningKey(key: made, algorithm: algorithm)
    }

    private init(key: OpaquePointer, algorithm: Algorithm) {
        self.key = key
        self.algorithm = algorithm
    }

    deinit { EVP_PKEY_free(key) }

    /// Signs `message` with SHA-256: PKCS #1 v1.5 for RSA, and for P-256 the JWS form `r || s` (64 bytes), not
    /// the DER that OpenSSL produces.
    package func sign(_ message: [UInt8]) throws(CredentialError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CredentialError("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1,
            EVP_DigestSign(context, nil, &length, message, message.count) == 1
        else { throw CredentialError("signing failed: \(Self.openSSLError() ?? "unknown OpenSSL error")") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw CredentialError("signing failed: \(Self.openSSLError() ?? "unknown OpenSSL error")")
        }
        signature.removeLast(signature.count - length)
        switch algorithm {
        case .rs256: return signature
        case .es256: return try Self.rawECDSASignature(der: signature)
        }
    }

    /// The public half as PEM (`BEGIN PUBLIC KEY`), to hand to whoever verifies the tokens.
    package var publicKeyPEM: String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PUBKEY(bio, key) == 1 else { return "" }
        var data: UnsafeMutablePointer<CChar>?
        let length = copenssl_bio_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    /// DER `SEQUENCE { r INTEGER, s INTEGER }` → `r || s`, each left-padded to 32 bytes.
    private static func rawECDSASignature(der: [UInt8]) throws(CredentialError) -> [UInt8] {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var pointer = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &pointer, buffer.count)
        }
        guard let signature else { throw CredentialError("OpenSSL returned an unreadable ECDSA signature") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard written else { throw CredentialError("an ECDSA signature component is longer than 32 bytes") }
        return raw
    }

    /// The oldest queued OpenSSL error as text, clearing the queue (OpenSSL leaves failures queued).
    static func openSSLError() -> String? {
        defer { ERR_clear_error() }
        let code = ERR_get_error()
        guard code != 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
