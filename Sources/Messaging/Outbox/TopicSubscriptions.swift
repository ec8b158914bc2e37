import Synchronization

/// Which registration tokens are subscribed to which topics: what FCM's topic management (the IID
/// `batchAdd`/`batchRemove` calls) keeps, so the outbox can record which devices a topic or condition message
/// reached. A token is registered while it is subscribed to at least one topic.
///
/// Changes go through `sink` first (the app keeps them in its store) and take effect once it returns.
///
/// ```swift
/// let topics = TopicSubscriptions()
/// try await topics.subscribe(["token-a", "token-b"], to: "books")
/// topics.tokens(reachedBy: .condition("'books' in topics")) // ["token-a", "token-b"]
/// ```
package final class TopicSubscriptions: Sendable {
    /// One change, for whoever keeps the subscriptions (topic names without `/topics/`).
    package enum Change: Sendable, Equatable {
        case subscribed(topic: String, tokens: [String])
        case unsubscribed(topic: String, tokens: [String])
    }

    package typealias Sink = @Sendable (Change) async throws -> Void

    private struct State {
        var tokensByTopic: [String: Set<String>] = [:]
        var topicsByToken: [String: Set<String>] = [:]

        mutating func apply(_ change: Change) {
            switch change {
            case .subscribed(let topic, let tokens):
                tokensByTopic[topic, default: []].formUnion(tokens)
                for token in tokens { topicsByToken[token, default: []].insert(topic) }
            case .unsubscribed(let topic, let tokens):
                tokensByTopic[topic]?.subtract(tokens)
                if tokensByTopic[topic]?.isEmpty == true { tokensByTopic[topic] = nil }
                for token in tokens {
                    topicsByToken[token]?.remove(topic)
                    if topicsByToken[token]?.isEmpty == true { topicsByToken[token] = nil }
                }
            }
        }
    }

    private let state = Mutex(State())
    private let sink: Sink

    /// - Parameters:
    ///   - subscriptions: tokens by topic, as an earlier run left them.
    ///   - sink: receives each change before it takes effect; when it throws, nothing changes.
    package init(_ subscriptions: [String: Set<String>] = [:], sink: @escaping Sink = { _ in }) {
        self.sink = sink
        state.withLock { state in
            for (topic, tokens) in subscriptions where !tokens.isEmpty {
                state.apply(.subscribed(topic: Self.name(topic), tokens: Array(tokens)))
            }
        }
    }

    /// Subscribes `tokens` to `topic` (with or without `/topics/`); already subscribed tokens stay.
    package func subscribe(_ tokens: [String], to topic: String) async throws {
        guard !tokens.isEmpty else { return }
        let change = Change.subscribed(topic: Self.name(topic), tokens: tokens)
        try await sink(change)
        state.withLock { $0.apply(change) }
    }

    /// Unsubscribes `tokens` from `topic`; tokens that were not subscribed are left alone.
    package func unsubscribe(_ tokens: [String], from topic: String) async throws {
        guard !tokens.isEmpty else { return }
        let change = Change.unsubscribed(topic: Self.name(topic), tokens: tokens)
        try await sink(change)
        state.withLock { $0.apply(change) }
    }

    /// The tokens subscribed to `topic`, sorted.
    package func tokens(subscribedTo topic: String) -> [String] {
        state.withLock { $0.tokensByTopic[Self.name(topic)].map { $0.sorted() } ?? [] }
    }

    /// The topics `token` is subscribed to, sorted.
    package func topics(of token: String) -> [String] {
        state.withLock { $0.topicsByToken[token].map { $0.sorted() } ?? [] }
    }

    /// Every subscription: tokens by topic name.
    package var all: [String: Set<String>] { state.withLock { $0.tokensByTopic } }

    /// The registered tokens a message to `target` reaches, sorted: a topic's subscribers, the tokens whose
    /// topics satisfy a condition, or the token (or FID) itself.
    package func tokens(reachedBy target: PushMessage.Target) -> [String] {
        switch target {
        case .token(let device), .fid(let device):
            return [device]
        case .topic:
            return tokens(subscribedTo: target.value)
        case .condition(let text):
            guard let condition = try? TopicCondition(parsing: text) else { return [] }
            let topicsByToken = state.withLock { $0.topicsByToken }
            return topicsByToken.filter { condition.matches(subscriptions: $0.value) }.keys.sorted()
        }
    }

    /// A topic name without its `/topics/` prefix.
    static func name(_ topic: String) -> String {
        PushMessage.Target.topic(topic).value
    }
}
