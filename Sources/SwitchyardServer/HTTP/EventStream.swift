import Foundation
import Synchronization

/// A server-sent event stream (`text/event-stream`): handlers `send` events from any task; the server writes
/// them as they come and sends a comment line every 15 seconds so proxies and browsers keep the connection
/// open. Finishing the stream (or the client leaving, or the server stopping) ends the response;
/// `onTermination` then runs once, to stop whatever fed the stream.
///
/// The server's threads never wait for events: a stream with nothing to write suspends its connection, and the
/// next event (or the keep-alive interval) resumes it.
package final class EventStream: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var finished = false
        var onTermination: (@Sendable () -> Void)?
        /// Called once to wake the writer after it was told to wait.
        var wake: (@Sendable () -> Void)?
        var keepAliveDue = false
        var keepAliveTimer: (any DispatchSourceTimer)?
    }

    /// What the writer gets from `next`.
    enum Chunk {
        case bytes([UInt8])
        /// Nothing to write yet: the writer was suspended and `wake` will be called.
        case waiting
        /// Finished, and everything was written.
        case ended
    }

    private let state = Mutex(State())
    /// How long the writer waits for an event before it sends a keep-alive comment.
    let keepAliveInterval: TimeInterval

    package init(keepAliveInterval: TimeInterval = 15) {
        self.keepAliveInterval = keepAliveInterval
    }

    /// Queues one event; `data` may span lines (each becomes a `data:` line). Ignored once finished.
    ///
    /// - Parameter pendingLimit: while this many bytes or more wait for the client, the event is not queued and
    ///   the answer is false (the client is not reading); so at most the limit and one event wait.
    @discardableResult
    package func send(event: String? = nil, id: String? = nil, data: String, pendingLimit: Int = .max) -> Bool {
        var text = ""
        if let id { text += "id: \(id)\n" }
        if let event { text += "event: \(event)\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        text += "\n"
        return append(Array(text.utf8), pendingLimit: pendingLimit)
    }

    /// Queues a comment line (`: text`), which clients ignore.
    package func comment(_ text: String) {
        append(Array(": \(text)\n\n".utf8))
    }

    /// Ends the stream after what is queued has been written.
    package func finish() {
        let (handler, wake) = state.withLock { state -> ((@Sendable () -> Void)?, (@Sendable () -> Void)?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            state.keepAliveTimer?.cancel()
            state.keepAliveTimer = nil
            defer { (state.onTermination, state.wake) = (nil, nil) }
            return (state.onTermination, state.wake)
        }
        wake?()
        handler?()
    }

    /// Runs once when the stream ends, whoever ends it; at once when it already has.
    package func onTermination(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.finished { return true }
            state.onTermination = handler
            return false
        }
        if runNow { handler() }
    }

    package var isFinished: Bool { state.withLock { $0.finished } }

    @discardableResult
    private func append(_ bytes: [UInt8], pendingLimit: Int = .max) -> Bool {
        let (queued, wake) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard !state.finished else { return (true, nil) }
            guard state.pending.count < pendingLimit else { return (false, nil) }
            state.pending += bytes
            defer { state.wake = nil }
            return (true, state.wake)
        }
        wake?()
        return queued
    }

    /// For the server's writer: up to `capacity` bytes, or `.waiting` after `suspend` was called (while no
    /// event can slip in) and `wake` stored, to be called once when an event arrives, the stream finishes or
    /// the keep-alive interval passes.
    func next(capacity: Int, suspend: () -> Void, wake: @escaping @Sendable () -> Void) -> Chunk {
        state.withLock { state in
            if !state.pending.isEmpty {
                let count = min(capacity, state.pending.count)
                let chunk = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                return .bytes(chunk)
            }
            if state.finished { return .ended }
            if state.keepAliveDue {
                state.keepAliveDue = false
                return .bytes(Array(": keep-alive\n\n".utf8.prefix(capacity)))
            }
            suspend()
            state.wake = wake
            let timer = state.keepAliveTimer ?? makeKeepAliveTimer()
            state.keepAliveTimer = timer
            timer.schedule(deadline: .now() + keepAliveInterval)
            return .waiting
        }
    }

    /// Made on the first wait, re-armed at every wait: marks a keep-alive comment due and wakes the writer.
    private func makeKeepAliveTimer() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let wake = self.state.withLock { state -> (@Sendable () -> Void)? in
                guard let wake = state.wake else { return nil }
                state.keepAliveDue = true
                state.wake = nil
                return wake
            }
            wake?()
        }
        timer.activate()
        return timer
    }
}
