#if canImport(Glibc)
    import Glibc
#endif

/// A connection's peer: its address as text (`127.0.0.1:53412`) and the host alone, which the per-peer bound
/// counts by.
struct PeerAddress: Sendable {
    var host: String
    var port: UInt16

    var text: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    init(_ storage: sockaddr_storage) {
        var storage = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET6:
            (host, port) = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
                    return (String(cString: buffer), UInt16(bigEndian: address.pointee.sin6_port))
                }
            }
        default:
            (host, port) = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
                    return (String(cString: buffer), UInt16(bigEndian: address.pointee.sin_port))
                }
            }
        }
    }
}
