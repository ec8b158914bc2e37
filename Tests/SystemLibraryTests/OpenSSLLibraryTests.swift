import COpenSSL
import Testing

@Suite struct OpenSSLLibraryTests {
    @Test func sha256MatchesTheFIPSVector() {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let input = Array("abc".utf8)
        SHA256(input, input.count, &digest)
        let hex = digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        #expect(hex.joined() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func signsAndVerifiesWithAFreshP256Key() throws {
        let key = try #require(copenssl_ec_p256_generate())
        defer { EVP_PKEY_free(key) }
        let message = Array("header.payload".utf8)

        let signContext = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(signContext) }
        #expect(EVP_DigestSignInit(signContext, nil, EVP_sha256(), nil, key) == 1)
        var length = 0
        #expect(EVP_DigestSign(signContext, nil, &length, message, message.count) == 1)
        var signature = [UInt8](repeating: 0, count: length)
        #expect(EVP_DigestSign(signContext, &signature, &length, message, message.count) == 1)

        let verifyContext = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(verifyContext) }
        #expect(EVP_DigestVerifyInit(verifyContext, nil, EVP_sha256(), nil, key) == 1)
        #expect(EVP_DigestVerify(verifyContext, signature, length, message, message.count) == 1)
        var tampered = message
        tampered[0] ^= 1
        #expect(EVP_DigestVerify(verifyContext, signature, length, tampered, tampered.count) != 1)
        ERR_clear_error()
    }
}
