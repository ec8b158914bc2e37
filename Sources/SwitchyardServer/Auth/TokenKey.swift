/// A token as a dictionary key that hashes only its last 32 bytes: a JWT's signature, which differs between any
/// two tokens this server signed, while hashing the whole token (hundreds of bytes) cost every request more than
/// the look-up itself. Equality still compares the whole token, so a token that shares a signature with a kept
/// one (a forgery) lands in the same bucket and is told apart there.
struct TokenKey: Hashable, Sendable {
    let token: String

    func hash(into hasher: inout Hasher) {
        var token = token
        token.withUTF8 { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(32))))
        }
        hasher.combine(token.utf8.count)
    }
}
