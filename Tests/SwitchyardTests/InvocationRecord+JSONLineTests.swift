import BSON
import Foundation
import Testing

@testable import Switchyard

@Suite struct InvocationRecordJSONLineTests {
    @Test func aTriggerRunIsOneJSONObjectWithWhatLogCollectorsIndexOn() throws {
        let record = InvocationRecord(
            trigger: "sendBooksTopic", function: "sendBooksTopic", eventId: "00000000000000a1", attempt: 2,
            userId: "system", start: Date(timeIntervalSince1970: 1_800_000_000), duration: .milliseconds(3.25),
            outcome: .success, logs: ["notified 12 devices"])
        let line = record.jsonLine
        #expect(!line.contains("\n"))
        let document = try #require(try ExtendedJSON.parseValue(Array(line.utf8)).documentValue)
        #expect(document["time"] == "2027-01-15T08:00:00.003Z")
        #expect(document["level"] == "info")
        #expect(document["trigger"] == "sendBooksTopic")
        #expect(document["function"] == "sendBooksTopic")
        #expect(document["eventId"] == "00000000000000a1")
        #expect(document["attempt"]?.int64Value == 2)
        #expect(document["durationMs"]?.doubleValue == 3.25)
        #expect(document["outcome"] == "success")
        #expect(document["error"] == nil)
        #expect(document["logs"] == ["notified 12 devices"])
    }

    @Test func aFailedCallIsAnErrorWithItsMessageAndNullTrigger() throws {
        let record = InvocationRecord(
            function: "ping", userId: "u1", start: Date(timeIntervalSince1970: 0), duration: .seconds(1),
            outcome: .failure, error: "boom \"quoted\"\nsecond line")
        let line = record.jsonLine
        #expect(!line.contains("\n"))
        let document = try #require(try ExtendedJSON.parseValue(Array(line.utf8)).documentValue)
        #expect(document["level"] == "error")
        #expect(document["trigger"] == .null)
        #expect(document["eventId"] == .null)
        #expect(document["error"] == "boom \"quoted\"\nsecond line")
    }
}
