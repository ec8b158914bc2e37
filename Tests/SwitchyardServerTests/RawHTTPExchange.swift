import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/1.1 request written as bytes on a fresh loopback connection, and how the server answered: the
/// fuzzer sends what no well-behaved client library would (bad methods, paths, bodies), so it speaks raw TCP.
/// Blocking: it runs on a thread of its own, never on the cooperative pool the server's handlers share.
struct RawHTTPExchange {
    enum Outcome: Equatable {
        /// The status line and headers arrived; `streaming` when the answer is an event stream left open.
        case answered(status: Int, streaming: Bool)
        /// Nothing (or not the whole answer) came within the limit: the server hangs on this request.
        case noAnswer
        /// The server could not be reached or closed without answering.
        case refused(String)
    }

    let port: UInt16
    /// How long a request may go unanswered before it is a finding (a hang detector, not a speed bound).
    let limit: Duration

    /// Sends `request` from a thread of its own, for a test on the cooperative pool the server's handlers need.
    func sendFromThread(_ request: [UInt8]) async -> Outcome {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: send(request)) }.start()
        }
    }

    /// What came back besides the outcome: the answer's `Content-Type` and its body (empty unless answered, and
    /// for an event stream left open only what had arrived with its head).
    struct Exchange {
        var outcome: Outcome
        var contentType: String?
        var body: [UInt8] = []
    }

    /// Sends `request`; `isHead` says it asked for the headers alone (a `HEAD`), whose answer has no body.
    func send(_ request: [UInt8], isHead: Bool = false) -> Outcome {
        exchange(request, isHead: isHead).outcome
    }

    /// Sends `request` and keeps the answer's body and type too.
    func exchange(_ request: [UInt8], isHead: Bool = false) -> Exchange {
        let fd: Int32
        switch connectedLoopbackSocket(port: port) {
        case .success(let connected): fd = connected
        case .failure(let failure): return Exchange(outcome: .refused(failure.description))
        }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let deadline = ContinuousClock.now + limit
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                sent += n
            } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                if ContinuousClock.now >= deadline { return Exchange(outcome: .noAnswer) }
            } else {
                // The server may answer (413, 400) before reading a whole body, and close: read what it said.
                break
            }
        }
        return receive(fd, isHead: isHead, until: deadline)
    }

    /// Reads the answer until its end (Content-Length, or the close `Connection: close` brings).
    private func receive(_ fd: Int32, isHead: Bool, until deadline: ContinuousClock.Instant) -> Exchange {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var head: Head?
        func answered(_ head: Head, streaming: Bool) -> Exchange {
            let end = head.length.map { min(answer.count, head.bodyStart + $0) } ?? answer.count
            return Exchange(
                outcome: .answered(status: head.status, streaming: streaming), contentType: head.contentType,
                body: isHead ? [] : Array(answer[min(head.bodyStart, end)..<end]))
        }
        while true {
            if let head {
                if head.streaming { return answered(head, streaming: true) }
                // 204 and 304 answers, and answers to HEAD, end with their headers.
                if isHead || head.status == 204 || head.status == 304 { return answered(head, streaming: false) }
                if let length = head.length, answer.count - head.bodyStart >= length {
                    return answered(head, streaming: false)
                }
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                answer += buffer[..<n]
                if head == nil { head = Self.head(of: answer) }
                // An interim answer (`100 Continue`) comes before the one that counts.
                while let interim = head, (100..<200).contains(interim.status) {
                    answer.removeSubrange(..<interim.bodyStart)
                    head = Self.head(of: answer)
                }
            } else if n == 0 {
                guard let head else { return Exchange(outcome: .refused("closed without an answer")) }
                return answered(head, streaming: head.streaming)
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                if ContinuousClock.now >= deadline { return Exchange(outcome: .noAnswer) }
            } else {
                guard let head else { return Exchange(outcome: .refused("recv: errno \(errno)")) }
                return answered(head, streaming: head.streaming)
            }
        }
    }

    private struct Head {
        var status: Int
        var bodyStart: Int
        var length: Int?
        var streaming: Bool
        var contentType: String?
    }

    /// The status, where the body starts, its declared length and type and whether it is an event stream; nil until
    /// the headers are complete.
    private static func head(of bytes: [UInt8]) -> Head? {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        guard bytes.count >= 4, let at = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == end })
        else { return nil }
        let text = String(decoding: bytes[..<at], as: UTF8.self).lowercased()
        let lines = text.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        let status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
        var length: Int?
        var streaming = false
        var contentType: String?
        for line in lines.dropFirst() {
            if line.hasPrefix("content-length:") {
                length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces))
            }
            if line.hasPrefix("content-type:") {
                contentType = line.dropFirst(13).trimmingCharacters(in: .whitespaces)
                if line.contains("text/event-stream") { streaming = true }
            }
        }
        return Head(status: status, bodyStart: at + 4, length: length, streaming: streaming, contentType: contentType)
    }
}
