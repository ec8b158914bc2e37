import COpenSSL
import Foundation

/// The SCRAM variants drivers authenticate with: SCRAM-SHA-256 (RFC 7677), and SCRAM-SHA-1 (RFC 5802) for drivers
/// older than MongoDB 4.0's, such as Debian's pymongo 3.11. Their hashes, HMACs and PBKDF2 are OpenSSL's.
package enum ScramMechanism: String, CaseIterable, Sendable {
    case sha256 = "SCRAM-SHA-256"
    case sha1 = "SCRAM-SHA-1"

    /// What mongod uses when it makes a user: more rounds for SHA-256, whose rounds cost more to attack.
    var defaultIterations: Int { self == .sha256 ? 15_000 : 10_000 }

    /// mongod's salt lengths (the digest's length less four bytes).
    var saltLength: Int { self == .sha256 ? 28 : 16 }

    private var digest: OpaquePointer { self == .sha256 ? EVP_sha256() : EVP_sha1() }

    private var digestLength: Int { self == .sha256 ? 32 : 20 }

    func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: digestLength)
        var length: UInt32 = 0
        key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { message in
                _ = HMAC(
                    digest, key.baseAddress, Int32(key.count), message.baseAddress, message.count, &code, &length)
            }
        }
        return code
    }

    func hash(_ message: [UInt8]) -> [UInt8] {
        Self.digest(message, with: digest, length: digestLength)
    }

    /// PBKDF2 of the password as this mechanism feeds it in (`password(for:user:)`).
    func saltedPassword(_ password: String, user: String, salt: [UInt8], iterations: Int) throws(ScramFailure)
        -> [UInt8]
    {
        let input = Array(Self.input(password, user: user, mechanism: self).utf8)
        var key = [UInt8](repeating: 0, count: digestLength)
        let status = input.withUnsafeBufferPointer { input in
            salt.withUnsafeBufferPointer { salt in
                input.withMemoryRebound(to: CChar.self) { input in
                    PKCS5_PBKDF2_HMAC(
                        input.baseAddress, Int32(input.count), salt.baseAddress, Int32(salt.count),
                        Int32(clamping: iterations), digest, Int32(digestLength), &key)
                }
            }
        }
        guard status == 1 else {
            ERR_clear_error()
            throw ScramFailure("PKCS5_PBKDF2_HMAC failed")
        }
        return key
    }

    /// What PBKDF2 is given: for SCRAM-SHA-1, MongoDB's hex MD5 of `user:mongo:password` (what drivers send since
    /// MONGODB-CR, so old drivers keep working); for SCRAM-SHA-256 the password after SASLprep, as drivers prepare it.
    private static func input(_ password: String, user: String, mechanism: ScramMechanism) -> String {
        switch mechanism {
        case .sha1:
            let digest = Self.digest(Array("\(user):mongo:\(password)".utf8), with: EVP_md5(), length: 16)
            return digest.map { String(format: "%02x", $0) }.joined()
        case .sha256:
            return saslPrepared(password)
        }
    }

    /// RFC 4013's mapping: spaces other than U+0020 become U+0020, the characters mapped to nothing go, then NFKC.
    /// ASCII passwords come out unchanged.
    static func saslPrepared(_ text: String) -> String {
        var mapped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00A0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: mapped.append(" ")
            case 0x00AD, 0x034F, 0x1806, 0x180B...0x180D, 0x200C, 0x200D, 0x2060, 0xFE00...0xFE0F, 0xFEFF: continue
            default: mapped.append(scalar)
            }
        }
        return String(mapped).precomposedStringWithCompatibilityMapping
    }

    private static func digest(_ message: [UInt8], with type: OpaquePointer, length: Int) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        message.withUnsafeBufferPointer { _ = EVP_Digest($0.baseAddress, $0.count, &digest, &written, type, nil) }
        return digest
    }

    /// Whether two byte strings are equal, taking the same time wherever they differ.
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count, !lhs.isEmpty else { return lhs.count == rhs.count }
        return lhs.withUnsafeBytes { lhs in
            rhs.withUnsafeBytes { rhs in CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0 }
        }
    }

    /// Random bytes from the system's CSPRNG.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// A SCRAM exchange that cannot go on. Its message never holds a password, a proof or a key: clients read it.
package struct ScramFailure: Error, Sendable, CustomStringConvertible {
    package var message: String

    init(_ message: String) { self.message = message }

    package var description: String { message }

    /// What every failed proof answers, whether the user is unknown or the password wrong.
    static let authenticationFailed = ScramFailure("Authentication failed.")
}
