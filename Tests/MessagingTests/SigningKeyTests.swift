import BSON
import Foundation
import Messaging
import Testing

@Suite struct SigningKeyTests {
    @Test func p256KeysSignRawSixtyFourByteSignatures() throws {
        let key = try SigningKey(pem: TestCredentials.p256PrivateKeyPEM())
        #expect(key.algorithm == .es256)
        for _ in 0..<20 {
            // DER signatures vary in length (70 to 72 bytes); JWS wants exactly r || s.
            #expect(try key.sign(Array("header.payload".utf8)).count == 64)
        }
    }

    @Test func unusableKeysAreRefusedWithoutEchoingThem() throws {
        let secret = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7secretmaterial"
        #expect(throws: CredentialError("key.p8 is not a PEM private key: it has no -----BEGIN line")) {
            try SigningKey(pem: secret, source: "key.p8")
        }
        do {
            _ = try SigningKey(
                pem: "-----BEGIN PRIVATE KEY-----\n\(secret)\n-----END PRIVATE KEY-----\n", source: "key.p8")
            Issue.record("a truncated key was accepted")
        } catch {
            #expect(error.message.hasPrefix("key.p8 is not a usable PEM private key ("))
            #expect(!error.message.contains("secretmaterial"))
        }
    }
}
