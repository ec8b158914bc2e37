/// Hands each new element to every current follower (`logs --follow`, the dashboard's live views). A follower
/// that falls behind keeps the newest `bufferLimit` elements; one that stops iterating is forgotten.
final class LiveFeed<Element: Sendable>: Sendable {
    private let bufferLimit: Int
    /// Read by every publish (every function run), changed only when followers come and go.
    private let state = ReadMostly(State())

    private struct State {
        var followers: [UInt64: AsyncStream<Element>.Continuation] = [:] {
            didSet { current = Array(followers.values) }
        }
        /// `followers` as an array, made when they change rather than at every publish (which holds the lock
        /// only to take it).
        var current: [AsyncStream<Element>.Continuation] = []
        var nextId: UInt64 = 0
        var finished = false
    }

    init(bufferLimit: Int = 1024) {
        self.bufferLimit = bufferLimit
    }

    func follow() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: UInt64? = state.write { state in
            guard !state.finished else { return nil }
            state.nextId += 1
            state.followers[state.nextId] = continuation
            return state.nextId
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.write { $0.followers.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ element: Element) {
        let followers = state.read { $0.current }
        for follower in followers { follower.yield(element) }
    }

    /// Ends every follower's stream; later `follow()` streams end at once.
    func finish() {
        let followers = state.write { state in
            state.finished = true
            defer { state.followers.removeAll() }
            return Array(state.followers.values)
        }
        for follower in followers { follower.finish() }
    }
}
