import Foundation

extension InvocationRecord {
    /// The record as `switchyard logs` prints it: a heading line, then the function's log lines and the error,
    /// indented:
    ///
    /// ```
    /// 2026-11-29T19:05:00.123Z  onBookPushNotification → sentTopicNotification  attempt 1  success  3.2 ms  (event 00000000000000a1)
    ///   notified 12 devices
    /// ```
    package var lines: [String] {
        var heading: [UInt8] = []
        heading.reserveCapacity(headingCapacity)
        appendHeading(to: &heading)
        return [String(decoding: heading, as: UTF8.self)] + logs.map { "  \($0)" }
            + (error.map { ["  error: \($0)"] } ?? [])
    }

    /// `lines` joined by newlines.
    package var text: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(textCapacity)
        appendText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// About the length of `text` in UTF-8 bytes, for reserving room once for many records.
    package var textCapacity: Int {
        var capacity = headingCapacity
        for line in logs { capacity += 3 + line.utf8.count }
        if let error { capacity += 10 + error.utf8.count }
        return capacity
    }

    /// Room for the heading: its variable parts plus 96 bytes for the timestamp, words and numbers (enough but for
    /// durations of more than 10^15 ms, which only grow the buffer once).
    private var headingCapacity: Int {
        96 + function.utf8.count + (trigger ?? userId).utf8.count + (eventId?.utf8.count ?? 0)
    }

    /// Appends `text` as UTF-8: `serve` prints one for every call it serves, many into one buffer.
    package func appendText(to bytes: inout [UInt8]) {
        appendHeading(to: &bytes)
        for line in logs {
            bytes.append(contentsOf: "\n  ".utf8)
            bytes.append(contentsOf: line.utf8)
        }
        if let error {
            bytes.append(contentsOf: "\n  error: ".utf8)
            bytes.append(contentsOf: error.utf8)
        }
    }

    private func appendHeading(to bytes: inout [UInt8]) {
        UTCTimestamp.append(start, milliseconds: true, to: &bytes)
        bytes.append(contentsOf: "  ".utf8)
        if let trigger {
            bytes.append(contentsOf: trigger.utf8)
            bytes.append(contentsOf: " → ".utf8)
            bytes.append(contentsOf: function.utf8)
        } else {
            bytes.append(contentsOf: function.utf8)
            bytes.append(contentsOf: " (called by ".utf8)
            bytes.append(contentsOf: userId.utf8)
            bytes.append(UInt8(ascii: ")"))
        }
        bytes.append(contentsOf: "  attempt ".utf8)
        Self.appendDecimal(attempt.magnitude, negative: attempt < 0, to: &bytes)
        bytes.append(contentsOf: "  ".utf8)
        bytes.append(contentsOf: outcome.rawValue.utf8)
        bytes.append(contentsOf: "  ".utf8)
        Self.appendOneDecimal(duration.milliseconds, to: &bytes)
        bytes.append(contentsOf: " ms".utf8)
        if let eventId {
            bytes.append(contentsOf: "  (event ".utf8)
            bytes.append(contentsOf: eventId.utf8)
            bytes.append(UInt8(ascii: ")"))
        }
    }

    /// `String(format: "%.1f", value)`.
    static func oneDecimal(_ value: Double) -> String {
        var bytes: [UInt8] = []
        appendOneDecimal(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends what `String(format: "%.1f", value)` makes, with integer arithmetic (every served call prints a
    /// duration): the exact binary value times ten, rounded half to even as the C library rounds it.
    static func appendOneDecimal(_ value: Double, to bytes: inout [UInt8]) {
        let exponentBits = Int(value.exponentBitPattern)
        let fraction = UInt64(value.significandBitPattern)
        // value = significand × 2^exponent exactly (subnormals have no implicit leading bit).
        let (significand, exponent) =
            exponentBits == 0 ? (fraction, -1074) : (fraction | 1 << 52, exponentBits - 1075)
        // Integral values of 2^52 and more (and infinities, NaN) never are durations: the C library prints them.
        guard value.isFinite, exponent < 0 else {
            appendFormatted(value, to: &bytes)
            return
        }
        let scaled = 10 * significand  // < 2^57: no overflow
        let shift = UInt64(-exponent)
        var tenths: UInt64 = 0
        if shift < 64 {
            tenths = scaled >> shift
            let remainder = scaled & (1 << shift - 1)
            let half: UInt64 = 1 << (shift - 1)
            if remainder > half || (remainder == half && tenths & 1 == 1) { tenths += 1 }
        }  // else the value is under 2^-64 tenths from 0: 0.0
        if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
        appendDecimal(tenths / 10, negative: false, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + UInt8(tenths % 10))
    }

    private static func appendDecimal(_ value: UInt, negative: Bool, to bytes: inout [UInt8]) {
        appendDecimal(UInt64(value), negative: negative, to: &bytes)
    }

    private static func appendDecimal(_ value: UInt64, negative: Bool, to bytes: inout [UInt8]) {
        if negative { bytes.append(UInt8(ascii: "-")) }
        guard value >= 10 else {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var remaining = value
            var start = digits.count
            while remaining > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// `%.1f` by the C library, for the values `appendOneDecimal` leaves to it.
    private static func appendFormatted(_ value: Double, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 400) { buffer in
            let count = withVaList([value]) { vsnprintf(buffer.baseAddress, buffer.count, "%.1f", $0) }
            guard count >= 0, count < buffer.count else {
                bytes.append(contentsOf: String(format: "%.1f", value).utf8)
                return
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(count)))
        }
    }
}
