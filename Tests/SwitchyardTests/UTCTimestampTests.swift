import Foundation
import Testing

@testable import Switchyard

@Suite struct UTCTimestampTests {
    @Test func timestampsAppendedToBytesAreTheTextOfTheSameDate() {
        var generator = SystemRandomNumberGenerator()
        // Whole milliseconds between 1900 and 2200, as records carry them, and the edges of days and years.
        var dates = (0..<5_000).map { _ in
            Date(
                timeIntervalSince1970: Double(
                    Int64.random(in: -2_208_988_800_000..<7_258_118_400_000, using: &generator)) / 1000)
        }
        dates += [
            0, -0.001, 86_399.999, 951_782_400, 4_107_542_399.5, 253_402_300_799.25, 253_402_300_800, -62_167_219_200.5,
        ]
        .map { Date(timeIntervalSince1970: $0) }
        for date in dates {
            for milliseconds in [false, true] {
                var bytes: [UInt8] = Array("x".utf8)
                UTCTimestamp.append(date, milliseconds: milliseconds, to: &bytes)
                let text = UTCTimestamp.text(date, milliseconds: milliseconds)
                #expect(String(decoding: bytes, as: UTF8.self) == "x" + text, "\(date.timeIntervalSince1970)")
            }
        }
        #expect(
            UTCTimestamp.text(Date(timeIntervalSince1970: -62_167_219_200.5), milliseconds: true)
                == "-0001-12-31T23:59:59.500Z")
    }
}
