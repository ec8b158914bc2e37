#if canImport(Glibc)
    import Glibc
#endif

/// A connection's peer address as the socket gave it, made text only when asked for: few requests need it (a rule
/// that reads `%%request`, the loopback check of admin routes, `whatsmyuri`), and formatting it cost every served
/// call more than routing it. Hashable, so limits can be kept per peer.
package struct PeerAddress: Sendable, Hashable {
    /// `AF_INET` or `AF_INET6`.
    private let family: Int32
    /// The address's 4 or 16 bytes, in network order.
    private let bytes: (UInt64, UInt64)

    /// The address of a socket address; nil when it is neither IPv4 nor IPv6.
    package init?(socketAddress: UnsafePointer<sockaddr>) {
        self.init { bytes in
            switch Int32(socketAddress.pointee.sa_family) {
            case AF_INET:
                socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    withUnsafeBytes(of: address.pointee.sin_addr) {
                        bytes.copyMemory(from: $0.baseAddress!, byteCount: 4)
                    }
                }
                return AF_INET
            case AF_INET6:
                socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    withUnsafeBytes(of: address.pointee.sin6_addr) {
                        bytes.copyMemory(from: $0.baseAddress!, byteCount: 16)
                    }
                }
                return AF_INET6
            default:
                return -1
            }
        }
    }

    /// An address written as text (`10.0.0.1`, `2001:db8::1`); nil when it is neither.
    package init?(_ text: String) {
        self.init { bytes in
            let family = text.contains(":") ? AF_INET6 : AF_INET
            return inet_pton(family, text, bytes) == 1 ? family : -1
        }
    }

    /// An address that `copy` writes into 16 bytes, returning its family (-1 for none).
    package init?(copying copy: (UnsafeMutableRawPointer) -> Int32) {
        var bytes: (UInt64, UInt64) = (0, 0)
        let family = withUnsafeMutableBytes(of: &bytes) { raw in copy(raw.baseAddress!) }
        guard family == AF_INET || family == AF_INET6 else { return nil }
        self.family = family
        self.bytes = bytes
    }

    private init(family: Int32, bytes: (UInt64, UInt64)) {
        self.family = family
        self.bytes = bytes
    }

    /// What one client holds and per-peer limits count by: an IPv4 address, or an IPv6 address's /64, which a
    /// single host gets whole (RFC 4291; its SLAAC and temporary addresses, RFC 8981, pick from it at will). An IPv4
    /// address mapped into IPv6 (`::ffff:10.0.0.1`) stays one address.
    package var limitGroup: PeerAddress {
        guard family == AF_INET6, !isIPv4Mapped else { return self }
        // The second half of the 16 bytes, in memory order, is the interface identifier.
        return PeerAddress(family: family, bytes: (bytes.0, 0))
    }

    package var isIPv6: Bool { family == AF_INET6 }

    /// `::ffff:a.b.c.d`: ten zero bytes, then two 0xff.
    private var isIPv4Mapped: Bool {
        withUnsafeBytes(of: bytes) { raw in
            raw[..<10].allSatisfy { $0 == 0 } && raw[10] == 0xFF && raw[11] == 0xFF
        }
    }

    package static func == (left: PeerAddress, right: PeerAddress) -> Bool {
        left.family == right.family && left.bytes == right.bytes
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(family)
        hasher.combine(bytes.0)
        hasher.combine(bytes.1)
    }

    /// `127.0.0.1`, `::1`, …
    package var text: String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { buffer in
            let written = withUnsafeBytes(of: bytes) { raw in
                inet_ntop(family, raw.baseAddress, buffer.baseAddress, socklen_t(buffer.count))
            }
            return written == nil ? "" : String(cString: buffer.baseAddress!)
        }
    }
}
