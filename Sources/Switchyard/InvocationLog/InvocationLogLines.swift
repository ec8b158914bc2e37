import Synchronization

/// The lines one execution writes with `context.log`, bounded so a chatty or looping function cannot flood
/// the invocation log: after `maximumLines` lines or `maximumBytes` bytes the rest are counted, not kept, and
/// one "… N more lines dropped" line ends the log. Secrets are scrubbed as lines arrive.
final class InvocationLogLines: Sendable {
    static let maximumLines = 512
    static let maximumBytes = 64 * 1024

    private let scrubber: SecretScrubber
    private let state = Mutex(State())

    private struct State {
        var lines: [String] = []
        var bytes = 0
        var dropped = 0
        /// Set once the record is written; a function still running after its timeout logs into the void.
        var closed = false
    }

    init(scrubber: SecretScrubber) {
        self.scrubber = scrubber
    }

    func append(_ line: String) {
        let line = scrubber.scrub(line)
        state.withLock { state in
            guard !state.closed else { return }
            let size = line.utf8.count
            if state.dropped > 0 || state.lines.count >= Self.maximumLines || state.bytes + size > Self.maximumBytes {
                state.dropped += 1
            } else {
                state.lines.append(line)
                state.bytes += size
            }
        }
    }

    /// The lines so far, ending with the dropped-lines note; later appends are ignored.
    func close() -> [String] {
        state.withLock { state in
            state.closed = true
            guard state.dropped > 0 else { return state.lines }
            let noun = state.dropped == 1 ? "line" : "lines"
            return state.lines + ["… \(state.dropped) more \(noun) dropped"]
        }
    }
}
