import Foundation

/// A TCP socket connected to `127.0.0.1:port`, for tests that send what an HTTP client library will not; the caller
/// owns (and closes) the descriptor. The failure says which call failed and its errno.
func connectedLoopbackSocket(port: UInt16) -> Result<Int32, LoopbackSocketFailure> {
    let descriptor = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return .failure(LoopbackSocketFailure(description: "socket: errno \(errno)")) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
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
