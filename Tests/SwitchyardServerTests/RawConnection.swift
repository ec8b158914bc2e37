import Foundation

/// A plain TCP connection to a loopback server, for what an HTTP client library will not send: connections that
/// ask nothing, request heads trickled in part, heads over any limit. Reads never block (the socket is
/// non-blocking, and waiting happens in `Task.sleep`), so many of them never hold up the concurrency pool.
final class RawConnection {
    private var descriptor: Int32

    init(port: UInt16) throws {
        descriptor = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: errno \(errno)") }
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
            Foundation.close(descriptor)
            throw TestFailure("connect: errno \(errno)")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit { close() }

    /// Sends what the socket takes at once (a loopback socket takes far more than any test sends).
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Whether the server closed the connection, with or without an answer first (read and dropped).
    var closedByServer: Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        }
    }

    /// Everything the server sends until it closes the connection, or what arrived within `attempts` waits.
    func receiveUntilClosed(attempts: Int = 1000) async throws -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<attempts {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                received += buffer[..<count]
                continue
            }
            if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        return String(decoding: received, as: UTF8.self)
    }

    func close() {
        guard descriptor >= 0 else { return }
        Foundation.close(descriptor)
        descriptor = -1
    }
}
