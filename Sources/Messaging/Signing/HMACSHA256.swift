import COpenSSL

/// HMAC-SHA256 through OpenSSL: what signs the client API's tokens and verifies and signs webhook bodies.
package enum HMACSHA256 {
    /// The 32-byte code of `message` under `key`.
    package static func code(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { message in
                _ = HMAC(
                    EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, &code,
                    &length)
            }
        }
        return code
    }
}
