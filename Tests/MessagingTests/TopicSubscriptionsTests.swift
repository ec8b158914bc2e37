import Messaging
import Synchronization
import Testing

@Suite struct TopicSubscriptionsTests {
    @Test func topicsAndConditionsReachTheirSubscribers() async throws {
        let topics = TopicSubscriptions()
        try await topics.subscribe(["b", "a"], to: "/topics/books")
        try await topics.subscribe(["b", "c"], to: "news")
        #expect(topics.tokens(subscribedTo: "books") == ["a", "b"])
        #expect(topics.topics(of: "b") == ["books", "news"])
        #expect(topics.tokens(reachedBy: .topic("/topics/news")) == ["b", "c"])
        #expect(topics.tokens(reachedBy: .condition("'books' in topics && !('news' in topics)")) == ["a"])
        #expect(topics.tokens(reachedBy: .condition("'books' in topics || 'news' in topics")) == ["a", "b", "c"])
        #expect(topics.tokens(reachedBy: .token("z")) == ["z"])
        #expect(topics.tokens(reachedBy: .topic("nobody")) == [])

        try await topics.unsubscribe(["b", "never-subscribed"], from: "books")
        #expect(topics.tokens(subscribedTo: "books") == ["a"])
        try await topics.unsubscribe(["a"], from: "books")
        #expect(topics.all == ["news": ["b", "c"]])
        #expect(topics.topics(of: "a") == [])
    }

    @Test func changesGoThroughTheSinkAndAFailingSinkChangesNothing() async throws {
        struct StoreDown: Error {}
        let changes = Mutex<[TopicSubscriptions.Change]>([])
        let failing = Atomic(false)
        let topics = TopicSubscriptions(["books": ["old"]]) { change in
            if failing.load(ordering: .relaxed) { throw StoreDown() }
            changes.withLock { $0.append(change) }
        }
        #expect(topics.tokens(subscribedTo: "books") == ["old"])
        try await topics.subscribe(["new"], to: "/topics/books")
        try await topics.unsubscribe(["old"], from: "books")
        #expect(
            changes.withLock { $0 } == [
                .subscribed(topic: "books", tokens: ["new"]), .unsubscribed(topic: "books", tokens: ["old"]),
            ])
        failing.store(true, ordering: .relaxed)
        await #expect(throws: StoreDown.self) { try await topics.subscribe(["x"], to: "books") }
        #expect(topics.tokens(subscribedTo: "books") == ["new"])
    }
}
