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
}
