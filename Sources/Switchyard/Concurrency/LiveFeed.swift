/// Hands each new element to every current follower (`logs --follow`, the dashboard's live views). A follower
/// that falls behind keeps the newest `bufferLimit` elements; one that stops iterating is forgotten. Followers
/// that must see every element (`serve`'s log) take them in batches instead (`followBatches`), and publishers
/// wait for them when they fall far behind.
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
        /// The lossless followers.
        var queues: [UInt64: FeedQueue<Element>] = [:] {
            didSet { currentQueues = Array(queues.values) }
        }
        var currentQueues: [FeedQueue<Element>] = []
        var nextId: UInt64 = 0
        var finished = false
    }

    init(bufferLimit: Int = 1024) {
        self.bufferLimit = bufferLimit
    }

    func follow() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        guard let id = register({ $0.followers[$1] = continuation }) else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.write { $0.followers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Every element published from now on, in batches, none lost (see `FeedBatches`).
    func followBatches(backlogLimit: Int = 4096) -> FeedBatches<Element> {
        let queue = FeedQueue<Element>(backlogLimit: backlogLimit)
        guard let id = register({ $0.queues[$1] = queue }) else {
            queue.finish()
            return FeedBatches(queue: queue) {}
        }
        return FeedBatches(queue: queue) { [weak self] in
            _ = self?.state.write { $0.queues.removeValue(forKey: id) }
        }
    }

    /// Adds a follower under a new id with `add`; nil once the feed has finished.
    private func register(_ add: (inout State, UInt64) -> Void) -> UInt64? {
        state.write { state in
            guard !state.finished else { return nil }
            state.nextId += 1
            add(&state, state.nextId)
            return state.nextId
        }
    }

    /// Hands `element` to every follower; true when a lossless follower's backlog is full, and the publisher
    /// should `waitForFollowers()` before publishing more.
    @discardableResult
    func publish(_ element: Element) -> Bool {
        let (followers, queues) = state.read { ($0.current, $0.currentQueues) }
        for follower in followers { follower.yield(element) }
        var full = false
        for queue in queues where queue.put(element) { full = true }
        return full
    }

    /// Returns once every lossless follower's backlog is under its limit.
    nonisolated(nonsending) func waitForFollowers() async {
        let queues = state.read { $0.currentQueues }
        for queue in queues { await queue.waitForRoom() }
    }

    /// Ends every follower's stream; later `follow()` streams end at once.
    func finish() {
        let (followers, queues) = state.write { state in
            state.finished = true
            defer { (state.followers, state.queues) = ([:], [:]) }
            return (Array(state.followers.values), Array(state.queues.values))
        }
        for follower in followers { follower.finish() }
        for queue in queues { queue.finish() }
    }
}
