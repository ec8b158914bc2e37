import Foundation
import Synchronization

/// Reads a server-sent event stream as it arrives, over a plain socket (the libcurl client waits for whole
/// bodies). Asks with HTTP/1.0 so the body comes unchunked until the server closes it. All reading happens on
/// a thread of its own: a blocking read on the concurrency pool could starve the server's handlers.
final class LiveEventReader: Sendable {
    struct Event: Sendable, Equatable {
        var name: String
        var data: String
    }

    /// The response's status code (0 when the connection closed before the response head).
    let status: Int
    let events: AsyncStream<Event>
    /// The reading thread closes the socket when it is done; until then `stop` may shut it down. The lock
    /// keeps `stop` from touching a descriptor number the system already gave to someone else.
    private let socket: Socket

    final class Socket: Sendable {
        let descriptor: Mutex<Int32?>
        init(_ descriptor: Int32) { self.descriptor = Mutex(descriptor) }
    }

    private init(status: Int, events: AsyncStream<Event>, socket: Socket) {
        self.status = status
        self.events = events
        self.socket = socket
    }

    /// Connects, asks for `path` and returns once the response head arrived. With `comments`, each comment
    /// (`: text`) arrives too, as an event named `comment`.
    static func open(port: UInt16, path: String, token: String?, comments: Bool = false) async throws
        -> LiveEventReader
    {
        let descriptor: Int32
        switch connectedLoopbackSocket(port: port) {
        case .success(let connected): descriptor = connected
        case .failure(let failure): throw ReaderError(failure.description)
        }
        var request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }

        let socket = Socket(descriptor)
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let status = await withCheckedContinuation { (head: CheckedContinuation<Int, Never>) in
            Thread {
                read(descriptor, head: head, events: continuation, comments: comments)
                socket.descriptor.withLock { open in
                    close(descriptor)
                    open = nil
                }
            }.start()
        }
        return LiveEventReader(status: status, events: events, socket: socket)
    }

    /// The reading thread: the head (its status handed to `head`), then events until the connection closes.
    private static func read(
        _ descriptor: Int32, head: CheckedContinuation<Int, Never>, events: AsyncStream<Event>.Continuation,
        comments: Bool
    ) {
        var buffer: [UInt8] = []
        var headEnd: Int?
        while headEnd == nil, let chunk = receive(descriptor) {
            buffer += chunk
            headEnd = find([13, 10, 13, 10], in: buffer)
        }
        guard let headEnd else {
            head.resume(returning: 0)
            events.finish()
            return
        }
        let statusLine = String(decoding: buffer[..<headEnd], as: UTF8.self).split(separator: "\r\n").first ?? ""
        head.resume(returning: statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0)
        var pending = String(decoding: buffer[(headEnd + 4)...], as: UTF8.self)
        func flush() {
            while let range = pending.range(of: "\n\n") {
                let block = pending[..<range.lowerBound]
                pending = String(pending[range.upperBound...])
                var name = "message"
                var data: [String] = []
                if comments, let comment = block.split(separator: "\n").first(where: { $0.hasPrefix(": ") }) {
                    events.yield(Event(name: "comment", data: String(comment.dropFirst(2))))
                }
                for line in block.split(separator: "\n") where !line.hasPrefix(":") {
                    if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
                }
                if !data.isEmpty { events.yield(Event(name: name, data: data.joined(separator: "\n"))) }
            }
        }
        flush()
        while let chunk = receive(descriptor) {
            pending += String(decoding: chunk, as: UTF8.self)
            flush()
        }
        events.finish()
    }

    deinit { stop() }

    /// Closes the connection (the server sees the client leave).
    func stop() {
        socket.descriptor.withLock { open in
            if let open { shutdown(open, Int32(SHUT_RDWR)) }
        }
    }

    /// The next event named `name`, skipping others; nil when the stream ends or `timeout` passes first (a minute by
    /// default: an event a trigger's run sends can take tens of seconds under the whole suite's load).
    func next(_ name: String, timeout: Duration = .seconds(60)) async -> Event? {
        let events = self.events
        return await withTaskGroup(of: Event?.self) { group in
            group.addTask {
                for await event in events where event.name == name { return event }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    private static func receive(_ descriptor: Int32) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(chunk[..<count]) : nil
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for index in 0...(bytes.count - pattern.count) where Array(bytes[index..<(index + pattern.count)]) == pattern {
            return index
        }
        return nil
    }

    struct ReaderError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
