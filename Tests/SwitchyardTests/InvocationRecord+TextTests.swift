import Foundation
import Testing

@testable import Switchyard

@Suite struct InvocationRecordTextTests {
    @Test func durationsPrintAsStringFormatPrintsThem() {
        // Ties in decimal that are not ties in binary, exact binary ties, large and tiny values.
        let values: [Double] = [
            0, 0.05, 0.15, 0.25, 0.35, 0.45, 1.15, 1.25, 1.35, 2.675, 9.95, 99.95, 0.000_001, 123_456.75, 1e20, 3e300,
        ]
        for value in values {
            #expect(InvocationRecord.oneDecimal(value) == String(format: "%.1f", value), "\(value)")
        }
    }

    @Test func aRecordsHeadingShowsItsDurationInMilliseconds() {
        let record = InvocationRecord(
            function: "ping", userId: "user-1", start: Date(timeIntervalSince1970: 0), duration: .microseconds(3_250),
            outcome: .success)
        #expect(record.lines == ["1970-01-01T00:00:00.000Z  ping (called by user-1)  attempt 1  success  3.2 ms"])
    }

    @Test func aRecordsTextIsItsLinesOnePerLine() {
        let record = InvocationRecord(
            trigger: "onBookAdded", function: "sendBooksTopic", eventId: "00a1", attempt: 2, userId: "system",
            start: Date(timeIntervalSince1970: 1_800_000_000.5), duration: .milliseconds(12), outcome: .failure,
            error: "quota exceeded", logs: ["sending", "retrying"])
        #expect(
            record.lines == [
                "2027-01-15T08:00:00.500Z  onBookAdded → sendBooksTopic  attempt 2  failure  12.0 ms  (event 00a1)",
                "  sending", "  retrying", "  error: quota exceeded",
            ])
        #expect(record.text == record.lines.joined(separator: "\n"))
        let call = InvocationRecord(
            function: "ping", userId: "user-1", start: Date(timeIntervalSince1970: 0), duration: .zero,
            outcome: .success)
        #expect(call.text == "1970-01-01T00:00:00.000Z  ping (called by user-1)  attempt 1  success  0.0 ms")
    }
}
