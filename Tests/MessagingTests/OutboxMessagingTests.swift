import BSON
import Messaging
import Synchronization
import Testing

@Suite struct OutboxMessagingTests {
    private static let fixedTime = BSONDate(millisecondsSinceEpoch: 1_700_000_000_000)

    private func outbox(sink: @escaping OutboxMessaging.Sink = { _ in }) -> OutboxMessaging {
        OutboxMessaging(project: "books-app", senderId: "1234567890", clock: { Self.fixedTime }, sink: sink)
    }

    @Test func recordsWhatFCMAndTheDeviceReceive() async throws {
        let sunk = Mutex<[OutboxEntry]>([])
        let outbox = outbox { entry in sunk.withLock { $0.append(entry) } }
        var message = PushMessage.portable(
            target: .topic("books"), title: "New book", body: "Dune", image: "https://x.test/d.png", type: "bookAdded",
            collapseId: "book-1")
        message.android?.data = ["only": "android"]
        let name = try await outbox.send(message)

        let entries = outbox.entries
        #expect(entries.count == 1)
        #expect(sunk.withLock { $0 } == entries)
        let entry = try #require(entries.first)
        #expect(entry.name == name)
        let id = try #require(name.split(separator: "/").last.map(String.init))
        #expect(name == "projects/books-app/messages/\(id)" && UInt64(id) != nil)
        #expect(entry.target == .topic("books"))
        #expect(entry.time == Self.fixedTime)
        #expect(entry.request == message.sendRequestDocument())
        #expect(entry.error == nil && entry.isDelivered)
        #expect(
            entry.payload?.extendedJSON(mode: .relaxed)
                == #"{"messageId":"\#(id)","from":"/topics/books","collapseKey":"book-1","notification":{"title":"New book","body":"Dune","image":"https://x.test/d.png"},"data":{"only":"android"}}"#
        )
    }

    @Test func tokenMessagesComeFromTheSenderAndNamesAreUnique() async throws {
        let outbox = outbox()
        let first = try await outbox.send(PushMessage(target: .token("t"), data: ["b": "2", "a": "1"]))
        let second = try await outbox.send(PushMessage(target: .token("t"), notification: PushNotification(title: "x")))
        #expect(first != second)
        let payloads = outbox.entries.compactMap(\.payload)
        #expect(payloads[0]["from"] == "1234567890")
        #expect(payloads[0]["data"] == ["a": "1", "b": "2"])
        #expect(payloads[0]["notification"] == nil)
        #expect(payloads[1]["data"] == .document([:]))
    }

    @Test func keepsOnlyTheNewestEntriesWhileTheSinkGetsEvery() async throws {
        let sunk = Mutex(0)
        let outbox = OutboxMessaging(entryLimit: 3, sink: { _ in sunk.withLock { $0 += 1 } })
        var names: [String] = []
        for index in 0..<8 { names.append(try await outbox.send(PushMessage(target: .token("t\(index)")))) }
        #expect(outbox.entries.map(\.name) == Array(names.suffix(3)))
        #expect(sunk.withLock { $0 } == 8)
        outbox.removeAllEntries()
        let next = try await outbox.send(PushMessage(target: .token("t")))
        #expect(outbox.entries.map(\.name) == [next])
    }

    @Test func invalidMessagesThrowAndAreNotRecorded() async {
        let outbox = outbox()
        await #expect(throws: PushError.self) {
            try await outbox.send(PushMessage(target: .topic("no spaces")))
        }
        await #expect(throws: PushError.self) {
            try await outbox.sendEachForMulticast(MulticastMessage(tokens: []))
        }
        #expect(outbox.entries.isEmpty)
    }

    @Test func validateOnlyChecksWithoutRecording() async throws {
        let outbox = outbox()
        outbox.unregisteredTokens = ["gone"]
        #expect(
            try await outbox.send(PushMessage(target: .token("t")), validateOnly: true)
                == "projects/books-app/messages/fake_message_id")
        await #expect(throws: PushError(code: .unregistered, message: "Requested entity was not found.")) {
            try await outbox.send(PushMessage(target: .token("gone")), validateOnly: true)
        }
        let batch = try await outbox.sendEachForMulticast(MulticastMessage(tokens: ["t", "gone"]), validateOnly: true)
        #expect(batch.successCount == 1 && batch.results[1].error?.code == .unregistered)
        #expect(outbox.entries.isEmpty)
    }

    @Test func multicastRecordsOneEntryPerTokenWithUnregisteredTokensAsFailures() async throws {
        let outbox = outbox()
        outbox.unregisteredTokens = ["uninstalled"]
        let batch = try await outbox.sendEachForMulticast(
            .portable(tokens: ["phone", "uninstalled", "tablet"], title: "T", body: "B"))
        #expect(batch.results.map(\.token) == ["phone", "uninstalled", "tablet"])
        #expect(batch.successCount == 2 && batch.failureCount == 1)
        #expect(batch.results[1].error?.code == .unregistered && batch.results[1].messageName == nil)
        let entries = outbox.entries
        #expect(entries.map(\.target) == [.token("phone"), .token("uninstalled"), .token("tablet")])
        #expect(entries.map(\.isDelivered) == [true, false, true])
        #expect(entries[1].payload == nil)
        #expect(entries.compactMap(\.name).count == 3 && Set(entries.map(\.name)).count == 3)
        #expect(batch.results[0].messageName == entries[0].name)
        #expect(entries[2].request["message"]?.documentValue?["token"] == "tablet")

        await #expect(throws: PushError(code: .unregistered, message: "Requested entity was not found.")) {
            try await outbox.send(PushMessage(target: .token("uninstalled")))
        }
        #expect(outbox.entries.count == 4)
    }

    @Test func nextSendsFailWhenAsked() async throws {
        let outbox = outbox()
        outbox.failNextSends(2)
        await #expect(throws: PushError(code: .unavailable, message: "Injected failure: UNAVAILABLE.")) {
            try await outbox.send(PushMessage(target: .token("a")))
        }
        let batch = try await outbox.sendEachForMulticast(MulticastMessage(tokens: ["b", "c"]))
        #expect(batch.results.map { $0.error?.code } == [.unavailable, nil])
        _ = try await outbox.send(PushMessage(target: .token("d")))
        #expect(outbox.entries.map(\.isDelivered) == [false, false, true, true])
    }

    @Test func aFailingSinkFailsTheSendAndRecordsNothing() async {
        struct StoreDown: Error {}
        let outbox = outbox { _ in throw StoreDown() }
        await #expect {
            try await outbox.send(PushMessage(target: .token("a")))
        } throws: { error in
            (error as? PushError)?.code == .internal
        }
        let batch = try? await outbox.sendEachForMulticast(MulticastMessage(tokens: ["a"]))
        #expect(batch?.results.first?.error?.code == .internal)
        #expect(outbox.entries.isEmpty)
    }

    @Test func removeAllEntries() async throws {
        let outbox = outbox()
        _ = try await outbox.send(PushMessage(target: .token("a")))
        outbox.removeAllEntries()
        #expect(outbox.entries.isEmpty)
    }

    @Test func worksThroughThePushMessagingSeam() async throws {
        let messaging: any PushMessaging = outbox()
        let name = try await messaging.send(PushMessage(target: .condition("'a' in topics")))
        #expect(name.hasPrefix("projects/books-app/messages/"))
    }

    @Test func topicAndConditionMessagesRecordTheTokensTheyReached() async throws {
        let topics = TopicSubscriptions()
        try await topics.subscribe(["phone", "tablet", "stale"], to: "books")
        try await topics.subscribe(["tablet"], to: "muted")
        let outbox = OutboxMessaging(
            project: "books-app", topics: topics, faults: FaultSettings(unregisteredTokens: ["stale"]))
        _ = try await outbox.send(PushMessage(target: .topic("books"), data: ["k": "v"]))
        _ = try await outbox.send(PushMessage(target: .condition("'books' in topics && !('muted' in topics)")))
        _ = try await outbox.send(PushMessage(target: .token("phone")))
        _ = try? await outbox.send(PushMessage(target: .token("stale")))
        #expect(outbox.entries.map(\.reachedTokens) == [["phone", "tablet"], ["phone"], ["phone"], []])
        #expect(outbox.entries[0].document["reachedTokens"] == ["phone", "tablet"])
        #expect(try OutboxEntry(document: outbox.entries[1].document) == outbox.entries[1])
    }

    @Test func entriesWrittenBeforeReachedTokensStillRead() throws {
        let old: BSONDocument = [
            "name": "projects/p/messages/1", "target": ["token": "t"], "time": .datetime(Self.fixedTime),
            "request": ["message": ["token": "t"]], "payload": ["messageId": "1", "from": "p", "data": [:]],
        ]
        #expect(try OutboxEntry(document: old).reachedTokens == ["t"])
        var topic = old
        topic["target"] = ["topic": "books"]
        #expect(try OutboxEntry(document: topic).reachedTokens == [])
    }

    @Test func burstsOfEachCodeAreUsedUpInOrderAndCountedDown() async throws {
        let outbox = outbox()
        outbox.faults = FaultSettings(unavailable: 1, internalErrors: 1, quotaExceeded: 1)
        var codes: [PushError.Code?] = []
        for _ in 0..<4 {
            do {
                _ = try await outbox.send(PushMessage(target: .token("a")))
                codes.append(nil)
            } catch {
                codes.append((error as? PushError)?.code)
            }
        }
        #expect(codes == [.quotaExceeded, .unavailable, .internal, nil])
        #expect(outbox.faults == FaultSettings())
        #expect(outbox.entries.map(\.error?.code) == [.quotaExceeded, .unavailable, .internal, nil])
        // validate_only uses up no injected failure.
        outbox.failNextSends(1, with: .quotaExceeded)
        _ = try await outbox.send(PushMessage(target: .token("a")), validateOnly: true)
        #expect(outbox.faults.quotaExceeded == 1)
    }

    @Test func sendsBeyondTheRateLimitAreRefusedWithQuotaExceeded() async throws {
        let outbox = outbox()
        outbox.faults.rateLimit = 2
        var refused = 0
        for _ in 0..<5 {
            do { _ = try await outbox.send(PushMessage(target: .token("a"))) } catch {
                refused += (error as? PushError)?.code == .quotaExceeded ? 1 : 0
            }
        }
        // Five sends in a row fit in at most two one-second windows: at most four are accepted.
        #expect(refused >= 1)
        #expect(outbox.entries.filter(\.isDelivered).count == 5 - refused)
    }

    @Test func connectionResetsAreTakenOneAtATime() {
        let outbox = outbox()
        outbox.faults.connectionResets = 2
        #expect(
            [outbox.takeConnectionReset(), outbox.takeConnectionReset(), outbox.takeConnectionReset()] == [
                true, true, false,
            ])
    }
}
