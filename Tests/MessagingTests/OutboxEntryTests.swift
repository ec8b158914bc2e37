import BSON
import Messaging
import Testing

@Suite struct OutboxEntryTests {
    @Test func documentRoundTripsInItsDocumentedOrder() throws {
        let delivered = OutboxEntry(
            name: "projects/p/messages/1", target: .topic("books"), request: ["message": ["topic": "books"]],
            payload: ["messageId": "1"], time: BSONDate(millisecondsSinceEpoch: 0), reachedTokens: ["a", "b"])
        #expect(delivered.document.keys == ["name", "target", "time", "request", "payload", "reachedTokens"])
        #expect(try OutboxEntry(document: delivered.document) == delivered)
        #expect(
            delivered.document.extendedJSON(mode: .relaxed)
                == #"{"name":"projects/p/messages/1","target":{"topic":"books"},"time":{"$date":"1970-01-01T00:00:00Z"},"request":{"message":{"topic":"books"}},"payload":{"messageId":"1"},"reachedTokens":["a","b"]}"#
        )

        let failed = OutboxEntry(
            name: "projects/p/messages/2", target: .token("t"), request: [:], payload: nil,
            time: BSONDate(millisecondsSinceEpoch: 5), error: PushError(code: .unregistered, message: "gone"))
        #expect(failed.document.keys == ["name", "target", "time", "request", "reachedTokens", "error"])
        #expect(failed.reachedTokens == [])
        #expect(try OutboxEntry(document: failed.document) == failed)
        let condition = OutboxEntry(
            name: "n", target: .condition("'a' in topics"), request: [:], payload: nil,
            time: BSONDate(millisecondsSinceEpoch: 5))
        #expect(try OutboxEntry(document: condition.document) == condition)
    }

    @Test func malformedDocumentsSayWhatIsWrong() {
        let good = OutboxEntry(
            name: "n", target: .token("t"), request: [:], payload: nil, time: BSONDate(millisecondsSinceEpoch: 0)
        ).document
        var cases: [(BSONDocument, String)] = []
        var d = good
        d.removeValue(forKey: "time")
        cases.append((d, "missing field 'time'"))
        d = good
        d["target"] = ["device": "t"]
        cases.append((d, "'target' has unknown kind 'device'"))
        d = good
        d["name"] = 3
        cases.append((d, "'name' is not a string"))
        d = good
        d["error"] = ["code": 1]
        cases.append((d, "'error' is not {code: string, message: string}"))
        for (document, reason) in cases {
            #expect(throws: PushError(code: .invalidArgument, message: "Malformed outbox entry: \(reason)")) {
                try OutboxEntry(document: document)
            }
        }
    }
}
