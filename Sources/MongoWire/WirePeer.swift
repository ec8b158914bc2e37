import Sockets

#if canImport(Glibc)
    import Glibc
#endif

/// A wire connection's peer: its address, which the per-peer bound counts by, and its port, for `whatsmyuri`.
struct WirePeer: Sendable {
    var address: PeerAddress
    var port: UInt16

    /// `127.0.0.1:53412`, `[::1]:53412`.
    var text: String { address.isIPv6 ? "[\(address.text)]:\(port)" : "\(address.text):\(port)" }

    /// The peer `accept` wrote. An address of another family (none on a TCP socket) counts as the unspecified one.
    init(_ storage: sockaddr_storage) {
        var storage = storage
        address =
            withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { PeerAddress(socketAddress: $0) }
            } ?? PeerAddress("0.0.0.0")!
        // sin_port and sin6_port sit at the same offset, in network order.
        port = withUnsafeBytes(of: &storage) { UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self)) }
    }
}
