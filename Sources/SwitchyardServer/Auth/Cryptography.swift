import COpenSSL

/// The few cryptographic primitives the auth layer needs beside Messaging's `HMACSHA256`: random bytes, SHA-256,
/// PBKDF2 and a comparison whose time does not depend on where two byte strings differ.
enum Cryptography {
    /// Random bytes from the system's CSPRNG (`SystemRandomNumberGenerator`: getrandom(2) on Linux, which OpenSSL's
    /// own generator is seeded from). Not from OpenSSL: the signing key and admin token made at start would set
    /// OpenSSL up (megabytes of its code and tables) in a server that may stay idle and never sign a token.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count { withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) } }
        return Array(bytes.prefix(count))
    }

    /// `bytes` as lowercase hexadecimal, two digits a byte.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func sha256(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        message.withUnsafeBufferPointer { _ = SHA256($0.baseAddress, $0.count, &digest) }
        return digest
    }

    /// PBKDF2-HMAC-SHA256 of `password` with `salt`; CPU-bound for as long as `iterations` says.
    static func pbkdf2SHA256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) throws(CryptographyError)
        -> [UInt8]
    {
        var key = [UInt8](repeating: 0, count: length)
        let status = password.withUnsafeBufferPointer { password in
            salt.withUnsafeBufferPointer { salt in
                password.withMemoryRebound(to: CChar.self) { password in
                    PKCS5_PBKDF2_HMAC(
                        password.baseAddress, Int32(password.count), salt.baseAddress, Int32(salt.count),
                        Int32(clamping: iterations), EVP_sha256(), Int32(length), &key)
                }
            }
        }
        guard status == 1 else {
            ERR_clear_error()
            throw CryptographyError(message: "PKCS5_PBKDF2_HMAC failed")
        }
        return key
    }

    /// Whether two byte strings are equal, taking the same time wherever they differ (CRYPTO_memcmp); strings of
    /// different lengths are unequal (lengths are not secret here: hashes and MACs have fixed sizes).
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return lhs.withUnsafeBytes { lhs in
            rhs.withUnsafeBytes { rhs in CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0 }
        }
    }
}

/// OpenSSL failed at something that should not fail (no entropy, no memory).
struct CryptographyError: Error, Sendable, CustomStringConvertible {
    var message: String
    var description: String { message }
}
