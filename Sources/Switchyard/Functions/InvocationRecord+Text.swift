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
        [heading] + logs.map { "  \($0)" } + (error.map { ["  error: \($0)"] } ?? [])
    }

    /// `lines` joined by newlines, made as one string (`serve` prints one for every call it serves).
    public var text: String {
        var text = heading
        for line in logs {
            text += "\n  "
            text += line
        }
        if let error {
            text += "\n  error: "
            text += error
        }
        return text
    }

    private var heading: String {
        var heading = UTCTimestamp.text(start, milliseconds: true)
        heading.reserveCapacity(heading.utf8.count + 64 + function.utf8.count + (trigger ?? userId).utf8.count)
        heading += "  "
        if let trigger {
            heading += trigger
            heading += " → "
            heading += function
        } else {
            heading += function
            heading += " (called by "
            heading += userId
            heading += ")"
        }
        heading += "  attempt "
        heading += String(attempt)
        heading += "  "
        heading += outcome.rawValue
        heading += "  "
        heading += Self.oneDecimal(duration.milliseconds)
        heading += " ms"
        if let eventId {
            heading += "  (event "
            heading += eventId
            heading += ")"
        }
        return heading
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
