import Foundation

extension InvocationRecord {
    /// The record as `switchyard logs` prints it: a heading line, then the function's log lines and the error,
    /// indented:
    ///
    /// ```
    /// 2026-11-29T19:05:00.123Z  sendBooksTopic → sendBooksTopic  attempt 1  success  3.2 ms  (event 00000000000000a1)
    ///   notified 12 devices
    /// ```
    public var lines: [String] {
        let source = trigger.map { "\($0) → \(function)" } ?? "\(function) (called by \(userId))"
        var heading = "\(UTCTimestamp.text(start, milliseconds: true))  \(source)  attempt \(attempt)  "
        heading += "\(outcome.rawValue)  \(Self.oneDecimal(duration.milliseconds)) ms"
        if let eventId { heading += "  (event \(eventId))" }
        return [heading] + logs.map { "  \($0)" } + (error.map { ["  error: \($0)"] } ?? [])
    }

    /// `String(format: "%.1f", value)` through the C library directly, without its NSString round trip (every
    /// served call prints a record).
    static func oneDecimal(_ value: Double) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 48) { buffer in
            let count = withVaList([value]) { vsnprintf(buffer.baseAddress, buffer.count, "%.1f", $0) }
            guard count >= 0, count < buffer.count else { return String(format: "%.1f", value) }
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(count)), as: UTF8.self)
        }
    }
}
