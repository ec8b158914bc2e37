import BSON
import DocumentStore
import Foundation
import Functions
import Messaging
import Switchyard
import Synchronization
import Testing

@testable import SwitchyardServer

/// A served app's `context.services.messaging` is the real FCM client speaking to the server's own emulator, so
/// the emulator's faults reach it as FCM's bad days would: every message ends delivered or failed with its
/// reason, and none is delivered twice.
@Suite(.timeLimit(.minutes(2))) struct ServedMessagingFaultTests {
    static let quickRetry = Messaging.RetryPolicy(
        maximumAttempts: 5, initialBackoff: .milliseconds(20), maximumBackoff: .milliseconds(200))

    @Test func functionsSendThroughTheFCMClientAndItsOAuthExchange() async throws {
        try await ServedApp.with(FunctionRegistry()) { served in
            let client = try #require(served.app.messaging.transport as? FCMClient)
            #expect(client === served.server.emulatorClient)
            #expect(client.configuration.endpoints == .emulator(served.server.http.baseURL))
            let name = try await served.app.messaging.send(
                PushMessage(target: .token("phone"), notification: PushNotification(title: "Hi")))
            #expect(served.app.pushOutbox.entries.map(\.name) == [name])
            // The token came from the emulator's OAuth2 endpoint, not a fixed one.
            let token = try await client.accessTokens.accessToken()
            #expect(token != "owner")
            #expect(served.server.fcmEmulator.grant(Self.bearer(token)).isSuccess)
            await served.server.stop()
            #expect(served.app.messaging.transport is OutboxMessaging)
        }
    }

    @Test func throughRateLimitsBurstsSlownessAndResetsEachMessageEndsOnceDeliveredOrFailedWithItsReason()
        async throws
    {
        try await ServedApp.with(FunctionRegistry(), retry: Self.quickRetry) { served in
            served.app.pushOutbox.faults = FaultSettings(
                unavailable: 4, quotaExceeded: 3, retryAfterSeconds: 1, latency: .milliseconds(30),
                connectionResets: 3)
            let tokens = (0..<24).map { "device-\($0)" }
            let response = try await served.app.messaging.sendEachForMulticast(
                MulticastMessage(tokens: tokens, data: ["bookId": "42"]))

            let entries = served.app.pushOutbox.entries
            let delivered = Dictionary(grouping: entries.filter(\.isDelivered), by: \.target.value)
            for result in response.results {
                let copies = delivered[result.token]?.count ?? 0
                if let error = result.error {
                    #expect([.unavailable, .quotaExceeded, .transport].contains(error.code), "\(error)")
                    #expect(copies == 0, "\(result.token) failed with \(error) but was delivered")
                } else {
                    #expect(copies == 1, "\(result.token) was delivered \(copies) times")
                }
            }
            // Every injected failure was met (resets leave no entry: the emulator never saw those requests)...
            #expect(served.app.pushOutbox.faults.unavailable == 0)
            #expect(served.app.pushOutbox.faults.quotaExceeded == 0)
            #expect(served.app.pushOutbox.faults.connectionResets == 0)
            #expect(entries.filter { !$0.isDelivered }.count == 7)
            // ...and retried: five attempts outlast nine failures spread over 24 tokens.
            #expect(response.successCount == tokens.count)
        }
    }

    @Test func aSendThatRunsOutOfAttemptsReportsTheLastReason() async throws {
        try await ServedApp.with(FunctionRegistry(), retry: Self.quickRetry) { served in
            served.app.pushOutbox.faults = FaultSettings(unavailable: 5)
            await #expect {
                try await served.app.messaging.send(PushMessage(target: .topic("books"), data: ["a": "b"]))
            } throws: { error in
                (error as? PushError)?.code == .unavailable
                    && (error as? PushError)?.message.contains("gave up after 5 attempts") == true
            }
            #expect(served.app.pushOutbox.entries.allSatisfy { !$0.isDelivered })
            #expect(served.app.pushOutbox.entries.count == 5)
        }
    }

    /// The example app's queue path through a served app: a favourite book changes while FCM is down, the queued
    /// notification stays `processed: false` with its reason, and the scheduled `retryUnprocessedNotifications`
    /// delivers it once FCM is back — to each device once.
    @Test func aQueuedNotificationThatFailedIsSentByTheScheduledRetry() async throws {
        let clock = ShiftedClock()
        try await ServedApp.withExampleApp(
            triggers: TriggerRuntimeConfiguration(clock: clock), retry: Self.quickRetry
        ) { served in
            let login = try await served.registerAndLogin("reader@example.com")
            try await served.app.awaitIdle()
            for device in ["phone", "tablet"] {
                let stored = try await served.call(
                    "updateFCMUserToken", #"["\#(device)", "add"]"#, token: login.accessToken)
                #expect(stored.status == 200, "\(stored.text)")
            }
            let books = served.app.store.database("product").collection("book")
            let users = served.app.store.database("product").collection("user")
            let queue = served.app.store.database("product").collection("pushNotification")
            try await books.insertOne(["_id": "dune", "volumeInfo": ["title": "Dune"]])
            _ = try await users.updateOne(["_id": .string(login.userId)], ["$addToSet": ["favoriteBooks": "dune"]])
            try await served.app.awaitIdle()

            // FCM is down for longer than the client's five attempts per device (ten failures for two devices).
            served.app.pushOutbox.faults = FaultSettings(unavailable: 10)
            _ = try await books.updateOne(["_id": "dune"], ["$set": ["volumeInfo.pageCount": 412]])
            try await served.app.awaitIdle()
            let failed = try #require(try await queue.findOne([:]))
            #expect(failed["processed"] == false)
            #expect(failed["attempts"]?.int64Value == 1)
            #expect(failed["lastError"]?.stringValue?.contains("UNAVAILABLE") == true, "\(failed)")
            #expect(failed["deliveredTokens"]?.arrayValue?.isEmpty ?? true)
            #expect(served.app.pushOutbox.faults.unavailable == 0)

            // Past the retry delay, the scheduled trigger sends it again.
            clock.advance(by: 11 * 60)
            try await served.app.awaitIdle()
            let retried = try #require(try await queue.findOne([:]))
            #expect(retried["processed"] == true, "\(retried)")
            #expect(retried["sentAt"] != nil)
            #expect(
                Set(retried["deliveredTokens"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["phone", "tablet"])
            let outbox = try await served.app.outbox()
            for device in ["phone", "tablet"] {
                let copies = outbox.filter { $0.target == .token(device) && $0.isDelivered }
                #expect(copies.count == 1, "\(device) got \(copies.count) copies")
            }
            let runs = try await served.app.invocations.records(trigger: "retryUnprocessedNotifications")
            #expect(!runs.isEmpty)
        }
    }

    static func bearer(_ token: String) -> ServerRequest {
        ServerRequest(method: "POST", path: "/", headers: ["authorization": "Bearer \(token)"])
    }
}

/// The wall clock moved forward by hand: schedules come due at once, and sleeps wake when it moves.
final class ShiftedClock: TriggerClock {
    private let offset = Mutex<TimeInterval>(0)

    func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func sleep(until deadline: Date) async throws {
        while now() < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }

    func advance(by interval: TimeInterval) {
        offset.withLock { $0 += interval }
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
