import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP socket listening on a host name or literal and a port (0 picks a free one), and the port it got. An IPv6
/// address serves IPv6 alone, as it says.
package struct ListeningSocket: Sendable {
    package let socket: Int32
    package let port: UInt16

    /// - Parameter nonBlocking: whether `accept` on the socket returns at once when no connection waits.
    package init(host: String, port: UInt16, nonBlocking: Bool = false) throws(ListenError) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result, let address = first.pointee.ai_addr else {
            throw ListenError(
                reason: .cannotResolve,
                message: "cannot resolve host '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        let family = first.pointee.ai_family
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        let listener = Glibc.socket(family, type, 0)
        guard listener >= 0 else {
            throw ListenError(
                reason: .cannotListen, message: "cannot open a socket: \(String(cString: strerror(errno)))")
        }
        var on: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 {
            _ = setsockopt(listener, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bind(listener, address, first.pointee.ai_addrlen) == 0 else {
            let code = errno
            close(listener)
            throw ListenError(
                reason: code == EADDRINUSE ? .addressInUse : .cannotListen,
                message: "cannot listen on \(host):\(port): \(String(cString: strerror(code)))")
        }
        guard Glibc.listen(listener, SOMAXCONN) == 0 else {
            let code = errno
            close(listener)
            throw ListenError(
                reason: .cannotListen, message: "cannot listen on \(host):\(port): \(String(cString: strerror(code)))")
        }
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &localLength) }
        }
        self.port = withUnsafeBytes(of: &local) { raw in
            // sin_port and sin6_port sit at the same offset, in network order.
            UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self))
        }
        self.socket = listener
    }
}

/// Why a listening socket could not be had.
package struct ListenError: Error, Sendable, CustomStringConvertible {
    package enum Reason: Sendable {
        case addressInUse, cannotResolve, cannotListen
    }

    package var reason: Reason
    package var message: String

    package var description: String { message }
}
