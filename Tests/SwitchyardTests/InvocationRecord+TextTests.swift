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

    @Test func durationsRoundHalvesAsTheCLibraryDoes() {
        // Exact binary halves (x.25, x.75, …) go to the even digit; the decimal "halves" around them either way.
        var values: [Double] = [-0.0, -0.05, -0.25, -1.35, .leastNonzeroMagnitude, .leastNormalMagnitude]
        for tenth in 0..<5_000 {
            let base = Double(tenth) / 10
            values += [base + 0.05, base + 0.025, base + 0.075, base.nextUp, base.nextDown]
        }
        for quarter in 0..<4_000 { values.append(Double(quarter) * 0.25) }
        for power in -60...70 { values += [0x1p0 * pow(2, Double(power)), 0.05 * pow(2, Double(power))] }
        // 2^52 and beyond are whole numbers the C library prints itself; just under it the last binary digits
        // are halves.
        values += [4_503_599_627_370_495.5, 4_503_599_627_370_496, 9_007_199_254_740_992, 1e22, .infinity]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            values.append(Double.random(in: 0..<100_000, using: &generator))
            values.append(Double(bitPattern: UInt64.random(in: 0..<0x7FF0_0000_0000_0000, using: &generator)))
        }
        let wrong = values.filter { InvocationRecord.oneDecimal($0) != String(format: "%.1f", $0) }
        #expect(wrong.isEmpty, "\(wrong.prefix(5).map { "\($0): \(InvocationRecord.oneDecimal($0))" })")
    }

    @Test func manyRecordsAppendedToOneBufferAreTheirTextsOnePerLine() {
        let records = [
            InvocationRecord(
                trigger: "onBookAdded", function: "sendBooksTopic", eventId: "00a1", attempt: 12, userId: "system",
                start: Date(timeIntervalSince1970: 1_800_000_000.5), duration: .nanoseconds(1_250_000),
                outcome: .timeout, error: "took too long", logs: ["sending"]),
            InvocationRecord(
                function: "grüße", userId: "ユーザー", start: Date(timeIntervalSince1970: 253_402_300_800.5),
                duration: .seconds(86_400), outcome: .success),
            InvocationRecord(
                function: "ping", attempt: 0, userId: "u", start: Date(timeIntervalSince1970: -0.5),
                duration: .nanoseconds(50_000), outcome: .failure, logs: ["", "two"]),
        ]
        var bytes: [UInt8] = []
        for record in records {
            record.appendText(to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        #expect(String(decoding: bytes, as: UTF8.self) == records.map { $0.text + "\n" }.joined())
        #expect(
            records.map(\.text) == [
                "2027-01-15T08:00:00.500Z  onBookAdded → sendBooksTopic  attempt 12  timeout  1.2 ms  (event 00a1)\n"
                    + "  sending\n  error: took too long",
                "10000-01-01T00:00:00.500Z  grüße (called by ユーザー)  attempt 1  success  86400000.0 ms",
                "1969-12-31T23:59:59.500Z  ping (called by u)  attempt 0  failure  0.1 ms\n  \n  two",
            ])
        #expect(records.allSatisfy { $0.lines.joined(separator: "\n") == $0.text })
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
