import BSON
import COpenSSL
import Foundation
import Messaging
import Synchronization

/// Keys made by OpenSSL for the tests (never checked in), and JWT verification with their public halves.
enum TestCredentials {
    /// One RSA key for every test: generating 2048-bit keys is slow.
    static let rsaPrivateKeyPEM: String = privateKeyPEM(copenssl_rsa_generate(2048))

    static func p256PrivateKeyPEM() -> String { privateKeyPEM(copenssl_ec_p256_generate()) }

    static func serviceAccount(tokenURI: String, projectId: String = "demo") throws -> ServiceAccount {
        try ServiceAccount(
            projectId: projectId, clientEmail: "push@\(projectId).iam.gserviceaccount.com",
            privateKey: rsaPrivateKeyPEM, privateKeyId: "key-1", tokenURI: tokenURI)
    }

    /// A service account's JSON file, as the Firebase console downloads it.
    static func serviceAccountJSON(tokenURI: String) -> String {
        let document: BSONDocument = [
            "type": "service_account", "project_id": "demo", "private_key_id": "key-1",
            "private_key": .string(rsaPrivateKeyPEM), "client_email": "push@demo.iam.gserviceaccount.com",
            "token_uri": .string(tokenURI),
        ]
        return document.extendedJSON(mode: .relaxed)
    }

    private static func privateKeyPEM(_ key: OpaquePointer?) -> String {
        guard let key, let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer {
            BIO_free(bio)
            EVP_PKEY_free(key)
        }
        PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil)
        var data: UnsafeMutablePointer<CChar>?
        let length = copenssl_bio_get_mem_data(bio, &data)
        guard let data else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    /// The token's header and claims when its signature verifies with `publicKeyPEM`; nil otherwise.
    static func verify(jwt: String, publicKeyPEM: String) -> (header: BSONDocument, claims: BSONDocument)? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerBytes = base64URLDecode(parts[0]), let claimBytes = base64URLDecode(parts[1]),
            var signature = base64URLDecode(parts[2]),
            let header = try? ExtendedJSON.parseDocument(headerBytes),
            let claims = try? ExtendedJSON.parseDocument(claimBytes)
        else { return nil }
        let key: OpaquePointer? = Array(publicKeyPEM.utf8).withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let key else { return nil }
        defer { EVP_PKEY_free(key) }
        if header["alg"] == "ES256" {
            // JWS carries r || s; OpenSSL verifies DER.
            guard signature.count == 64, let der = derSignature(raw: signature) else { return nil }
            signature = der
        }
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1,
            EVP_DigestVerify(context, signature, signature.count, input, input.count) == 1
        else {
            ERR_clear_error()
            return nil
        }
        return (header, claims)
    }

    static func base64URLDecode(_ text: String) -> [UInt8]? {
        var base64 = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }

    private static func derSignature(raw: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, 32, nil)
        let s = BN_bin2bn(Array(raw[32...]), 32, nil)
        guard ECDSA_SIG_set0(signature, r, s) == 1 else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #file, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
