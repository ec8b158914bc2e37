import Testing

@testable import SwitchyardServer

/// What an event stream keeps for a client that does not read: at most its pending limit and one event.
@Suite struct EventStreamTests {
    @Test func eventsPastThePendingLimitAreRefusedUntilTheWriterTakesWhatWaits() {
        let stream = EventStream()
        let data = String(repeating: "x", count: 1000)
        var queued = 0
        while stream.send(data: data, pendingLimit: 4096) { queued += 1 }
        #expect(queued == 5)  // 4 events leave 4,032 bytes waiting, under the limit; the fifth passes it

        guard case .bytes(let written) = stream.next(capacity: 1 << 20, suspend: {}, wake: {}) else {
            Issue.record("the writer found nothing to write")
            return
        }
        #expect(written.count == 5 * 1008)
        #expect(String(decoding: written.prefix(1008), as: UTF8.self) == "data: \(data)\n\n")
        #expect(stream.send(data: data, pendingLimit: 4096))
        stream.finish()
    }
}
