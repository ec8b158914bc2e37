import Foundation
import Synchronization

/// A server-sent event stream (`text/event-stream`): handlers `send` events from any task; the server's
/// connection thread writes them as they come and sends a comment line every 15 seconds so proxies and
/// browsers keep the connection open. Finishing the stream (or the client leaving, or the server stopping)
/// ends the response; `onTermination` then runs once, to stop whatever fed the stream.
public final class EventStream: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var finished = false
        var onTermination: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let condition = NSCondition()
    /// How long the writer waits for an event before it sends a keep-alive comment.
    let keepAliveInterval: TimeInterval

    public init(keepAliveInterval: TimeInterval = 15) {
        self.keepAliveInterval = keepAliveInterval
    }

    /// Queues one event; `data` may span lines (each becomes a `data:` line). Ignored once finished.
    public func send(event: String? = nil, id: String? = nil, data: String) {
        var text = ""
        if let id { text += "id: \(id)\n" }
        if let event { text += "event: \(event)\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        text += "\n"
        append(Array(text.utf8))
    }

    /// Queues a comment line (`: text`), which clients ignore.
    public func comment(_ text: String) {
        append(Array(": \(text)\n\n".utf8))
    }

    /// Ends the stream after what is queued has been written.
    public func finish() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.onTermination = nil }
            return state.onTermination
        }
        wake()
        handler?()
    }

    /// Runs once when the stream ends, whoever ends it; at once when it already has.
    public func onTermination(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.finished { return true }
            state.onTermination = handler
            return false
        }
        if runNow { handler() }
    }

    public var isFinished: Bool { state.withLock { $0.finished } }

    private func append(_ bytes: [UInt8]) {
        let accepted = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.pending += bytes
            return true
        }
        if accepted { wake() }
    }

    private func wake() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// For the connection thread: up to `capacity` bytes, waiting for events (a keep-alive comment after the
    /// interval); nil when the stream has finished and everything was written.
    func next(capacity: Int) -> [UInt8]? {
        while true {
            let chunk = state.withLock { state -> [UInt8]? in
                guard !state.pending.isEmpty else { return nil }
                let count = min(capacity, state.pending.count)
                let chunk = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                return chunk
            }
            if let chunk { return chunk }
            if isFinished { return nil }
            condition.lock()
            let hasWork = state.withLock { !$0.pending.isEmpty || $0.finished }
            let signalled = hasWork || condition.wait(until: Date(timeIntervalSinceNow: keepAliveInterval))
            condition.unlock()
            if !signalled { return Array(": keep-alive\n\n".utf8).prefix(capacity).map { $0 } }
        }
    }
}
