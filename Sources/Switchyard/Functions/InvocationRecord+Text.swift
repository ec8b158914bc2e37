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
        heading += "\(outcome.rawValue)  \(String(format: "%.1f", duration.milliseconds)) ms"
        if let eventId { heading += "  (event \(eventId))" }
        return [heading] + logs.map { "  \($0)" } + (error.map { ["  error: \($0)"] } ?? [])
    }
}
