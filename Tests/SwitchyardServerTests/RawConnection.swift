import Foundation

/// A plain TCP connection to a loopback server, for what an HTTP client library will not send: connections that
/// ask nothing, request heads trickled in part, heads over any limit. Reads never block (the socket is
/// non-blocking, and waiting happens in `Task.sleep`), so many of them never hold up the concurrency pool.
final class RawConnection {
    private var descriptor: Int32

    init(port: UInt16) throws {
        switch connectedLoopbackSocket(port: port) {
        case .success(let connected): descriptor = connected
        case .failure(let failure): throw TestFailure(failure.description)
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
