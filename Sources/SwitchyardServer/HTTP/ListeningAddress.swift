import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The socket address a host name or literal and a port resolve to, and the listening socket bound to it.
struct ListeningAddress {
    private var storage = sockaddr_storage()
    let isIPv6: Bool

    init(host: String, port: UInt16) throws(HTTPServerError) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result, let address = first.pointee.ai_addr else {
            throw HTTPServerError(message: "cannot resolve host '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        isIPv6 = first.pointee.ai_family == AF_INET6
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(
                from: UnsafeRawBufferPointer(start: address, count: Int(first.pointee.ai_addrlen)))
        }
    }

    /// A non-blocking socket listening on the address, and the port it got (the one picked when asked for 0); nil
    /// when the address is taken or not one of this machine.
    func listen() -> (socket: Int32, port: UInt16)? {
        let family = isIPv6 ? AF_INET6 : AF_INET
        let listener = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { return nil }
        var on: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        // An IPv6 address serves IPv6 alone, as it says.
        if isIPv6 {
            _ = setsockopt(listener, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = storage
        let length = socklen_t(isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, Glibc.listen(listener, SOMAXCONN) == 0 else {
            close(listener)
            return nil
        }
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &localLength) }
        }
        let port = withUnsafeBytes(of: &local) { raw -> UInt16 in
            // sin_port and sin6_port sit at the same offset, in network order.
            UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
        }
        return (listener, port)
    }
}
