import Foundation

/// A plain TCP connection to a loopback server, for what an HTTP client library will not send: connections that
/// ask nothing, request heads trickled in part, heads over any limit. Reads never block (the socket is
/// non-blocking, and waiting happens in `Task.sleep`), so many of them never hold up the concurrency pool.
final class RawConnection {
    private var descriptor: Int32

    init(port: UInt16, ipv6: Bool = false) throws {
        switch connectedLoopbackSocket(port: port, ipv6: ipv6) {
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

    /// One whole answer (its head, and as many body bytes as its Content-Length says), leaving the connection
    /// open; nil when none arrived within `attempts` waits or the connection closed first.
    func receiveAnswer(attempts: Int = 1000) async throws -> RawAnswer? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<attempts {
            if let answer = RawAnswer(parsing: pending) {
                pending.removeFirst(answer.length)
                return answer
            }
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                pending += buffer[..<count]
                continue
            }
            if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { return nil }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Bytes received past the last answer `receiveAnswer` returned.
    private var pending: [UInt8] = []

    func close() {
        guard descriptor >= 0 else { return }
        Foundation.close(descriptor)
        descriptor = -1
    }
}

/// An HTTP/1.1 answer as bytes arrived: its status, headers (names lower-cased) and body.
struct RawAnswer {
    let status: Int
    let headers: [String: String]
    let body: [UInt8]
    /// Bytes the answer took, head and body.
    let length: Int

    /// Nil until the head and the whole body (by Content-Length; none without one) have arrived.
    init?(parsing bytes: [UInt8]) {
        let end = Array("\r\n\r\n".utf8)
        guard bytes.count >= 4, let at = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == end })
        else { return nil }
        let lines = String(decoding: bytes[..<at], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let bodyLength = headers["content-length"].flatMap(Int.init) ?? 0
        guard bytes.count >= at + 4 + bodyLength else { return nil }
        status = statusParts.count >= 2 ? Int(statusParts[1]) ?? 0 : 0
        self.headers = headers
        body = Array(bytes[(at + 4)..<(at + 4 + bodyLength)])
        length = at + 4 + bodyLength
    }

    /// The body as a JSON object, or nil when it is not one.
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }
}
