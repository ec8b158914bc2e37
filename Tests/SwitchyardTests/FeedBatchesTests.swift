import BSON
import Foundation
import Testing

@testable import Switchyard

/// A batch follower (what `serve` prints its log from) sees every element, in order, however far behind it
/// falls; it never holds the publishers up once it is gone.
@Suite(.timeLimit(.minutes(1))) struct FeedBatchesTests {
    @Test func aSlowFollowerGetsEveryElementInOrderAndHoldsPublishersBack() async throws {
        let feed = LiveFeed<Int>()
        let batches = feed.followBatches(backlogLimit: 8)
        let count = 3000
        let publisher = Task {
            var waits = 0
            for element in 0..<count where feed.publish(element) {
                waits += 1
                await feed.waitForFollowers()
            }
            feed.finish()
            return waits
        }
        var seen: [Int] = []
        var largest = 0
        for await batch in batches {
            seen += batch
            largest = max(largest, batch.count)
            // Slower than the publisher: it runs up against the backlog limit.
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(seen == Array(0..<count))
        #expect(largest > 1)
        #expect(largest <= 8)
        #expect(await publisher.value > 0)
    }

    @Test func finishingDeliversWhatWasPublishedBeforeThenEnds() async {
        let feed = LiveFeed<String>()
        let batches = feed.followBatches()
        feed.publish("a")
        feed.publish("b")
        feed.finish()
        var iterator = batches.makeAsyncIterator()
        #expect(await iterator.next() == ["a", "b"])
        #expect(await iterator.next() == nil)
        // Following a finished feed ends at once.
        var late = feed.followBatches().makeAsyncIterator()
        #expect(await late.next() == nil)
    }

    @Test func aFollowerDroppedOrCancelledNoLongerHoldsPublishersBack() async {
        let feed = LiveFeed<Int>()
        do {
            let dropped = feed.followBatches(backlogLimit: 2)
            #expect(feed.publish(1) == false)
            #expect(feed.publish(2) == true)
            _ = dropped
        }
        #expect(feed.publish(3) == false)
        await feed.waitForFollowers()

        let batches = feed.followBatches(backlogLimit: 2)
        let follower = Task {
            var received: [Int] = []
            for await batch in batches { received += batch }
            return received
        }
        follower.cancel()
        #expect(await follower.value.count <= 1)
        for element in 0..<10 { #expect(feed.publish(element) == false) }
        await feed.waitForFollowers()
    }

    @Test func everyRunOfTheAppIsFollowedInOrder() async throws {
        var registry = FunctionRegistry()
        registry.register("echo") { (arguments: [BSON], _: FunctionContext) in arguments.first ?? .null }
        let app = try await SwitchyardApp.inMemory(registry)
        let batches = app.invocations.followBatches()
        let count = 2000  // more than a lossy follower keeps
        for index in 0..<count {
            _ = try await app.call(function: "echo", arguments: [.int64(Int64(index))], user: FunctionUser(id: "u"))
        }
        let ids = try await app.invocations.records(limit: count).map(\.id)
        await app.stop()
        var followed: [InvocationRecord] = []
        for await batch in batches { followed += batch }
        #expect(followed.count == count)
        #expect(followed.map(\.id) == ids)
        #expect(followed.allSatisfy { $0.function == "echo" && $0.outcome == .success })
    }
}
