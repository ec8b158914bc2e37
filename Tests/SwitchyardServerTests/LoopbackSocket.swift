import Foundation

/// A TCP socket connected to `127.0.0.1:port` (`[::1]:port` with `ipv6`), for tests that send what an HTTP client
/// library will not; the caller owns (and closes) the descriptor. The failure says which call failed and its errno.
func connectedLoopbackSocket(port: UInt16, ipv6: Bool = false) -> Result<Int32, LoopbackSocketFailure> {
    let descriptor = Foundation.socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return .failure(LoopbackSocketFailure(description: "socket: errno \(errno)")) }
    let connected: Int32
    if ipv6 {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        address.sin6_addr = in6addr_loopback
        connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
    } else {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
    guard connected == 0 else {
        let failure = LoopbackSocketFailure(description: "connect: errno \(errno)")
        Foundation.close(descriptor)
        return .failure(failure)
    }
    return .success(descriptor)
}

struct LoopbackSocketFailure: Error, CustomStringConvertible {
    let description: String
}
