import BSON
import Messaging
import Testing

@testable import SwitchyardServer

@Suite struct JSONWebTokenTests {
    let key = SigningKey(bytes: Array(repeating: 7, count: 64))

    @Test func signsHS256TokensThatVerifyAndCarryTheirClaims() throws {
        let claims: BSONDocument = ["sub": "u1", "typ": "access", "exp": .int64(2_000_000_000), "user_data": ["a": 1]]
        let token = JSONWebToken.sign(claims, key: key)
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        #expect(!token.contains("="))
        let header = try ExtendedJSON.parseDocument(try #require(Base64URL.decode(parts[0])))
        #expect(header == ["alg": "HS256", "typ": "JWT"])
        let verified = try JSONWebToken.verifiedClaims(token, key: key)
        #expect(verified["sub"] == "u1")
        #expect(verified["typ"] == "access")
        #expect(verified["exp"]?.int64Value == 2_000_000_000)
        #expect(verified["user_data"] == ["a": 1])
        #expect(throws: TokenRejection("the token is too long")) {
            try JSONWebToken.verifiedClaims(String(repeating: "a", count: JSONWebToken.maximumLength + 1), key: key)
        }
    }

    @Test func aTokenSignedWithAnotherKeyOrAlteredDoesNotVerify() throws {
        let token = JSONWebToken.sign(["sub": "u1"], key: key)
        #expect(throws: TokenRejection.self) {
            try JSONWebToken.verifiedClaims(token, key: SigningKey(bytes: Array(repeating: 8, count: 64)))
        }
        var altered = Array(token.utf8)
        altered[altered.count - 2] =
            altered[altered.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: TokenRejection.self) {
            try JSONWebToken.verifiedClaims(String(decoding: altered, as: UTF8.self), key: key)
        }
    }

    @Test func theSignatureIsHMACSHA256OfTheSigningInput() throws {
        // RFC 4231 test case 2: HMAC-SHA-256 with key "Jefe".
        let code = HMACSHA256.code(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(
            code.map { String(format: "%02x", $0) }.joined()
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}

@Suite struct Base64URLTests {
    @Test func roundTripsEveryLengthWithoutPadding() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 250) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(Substring(text)) == bytes)
        }
        #expect(Base64URL.encode(Array("any carnal pleas".utf8)) == "YW55IGNhcm5hbCBwbGVhcw")
    }

    @Test func refusesPaddingForeignCharactersAndImpossibleLengths() {
        #expect(Base64URL.decode("YQ==") == nil)
        #expect(Base64URL.decode("a+b/") == nil)
        #expect(Base64URL.decode("abcde") == nil)
        // Non-zero leftover bits are not a canonical encoding.
        #expect(Base64URL.decode("YR") == nil)
    }
}

@Suite struct PasswordHasherTests {
    @Test func verifiesTheRightPasswordOnlyWithAFreshSaltEachTime() async throws {
        let hasher = PasswordHasher(iterations: 1_000)
        let first = try await hasher.hash("correct horse")
        let second = try await hasher.hash("correct horse")
        #expect(first.salt.count == 16 && first.hash.count == 32)
        #expect(first.salt != second.salt && first.hash != second.hash)
        #expect(try await hasher.verify("correct horse", against: first))
        #expect(try await !hasher.verify("correct horsf", against: first))
        #expect(try await !hasher.verify("", against: first))
        // The iteration count is kept with the hash: a hasher with another default still verifies it.
        #expect(try await PasswordHasher(iterations: 5).verify("correct horse", against: second))
        #expect(PasswordHash(fields: first.fields) == first)
    }

    @Test func derivesPBKDF2HMACSHA256() throws {
        // RFC 7914 §11: PBKDF2-HMAC-SHA256("passwd", "salt", c = 1, dkLen = 64), first 32 bytes.
        let key = try Cryptography.pbkdf2SHA256(
            password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 32)
        #expect(
            key.map { String(format: "%02x", $0) }.joined()
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
        #expect(PasswordHasher.defaultIterations >= 100_000)
    }
}
