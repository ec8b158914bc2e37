#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A token as a dictionary key that hashes only its last 32 bytes: a JWT's signature, which differs between any
/// two tokens this server signed, while hashing the whole token (hundreds of bytes) cost every request more than
/// the look-up itself. Equality still compares the whole token, so a token that shares a signature with a kept
/// one (a forgery) lands in the same bucket and is told apart there.
///
/// The token is kept as a slice (of the `Authorization` header it came in, when looked up for a request), so that a
/// look-up copies none of it.
struct TokenKey: Hashable, Sendable {
    let token: Substring

    init(token: Substring) {
        self.token = token
    }

    init(token: String) {
        self.token = token[...]
    }

    func hash(into hasher: inout Hasher) {
        var token = token
        token.withUTF8 { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(32))))
        }
        hasher.combine(token.utf8.count)
    }

    /// Compared as bytes: tokens are ASCII, and Unicode-aware comparison of slices costs more.
    static func == (lhs: TokenKey, rhs: TokenKey) -> Bool {
        var (left, right) = (lhs.token, rhs.token)
        return left.withUTF8 { left in
            right.withUTF8 { right in
                left.count == right.count
                    && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
    }
}
