import BSON

/// A change event's `_id`: `{"_data": "<hex>"}`, where the hex is the event's change-log sequence
/// (16 digits, so tokens sort like sequences), followed by `01` for the `invalidate` that ended a stream.
public struct ResumeToken: Sendable, Hashable, CustomStringConvertible {
    package var sequence: Int64
    /// True for an `invalidate` event's token, which only `startAfter` accepts.
    package var isInvalidate: Bool

    package init(sequence: Int64, isInvalidate: Bool = false) {
        self.sequence = sequence
        self.isInvalidate = isInvalidate
    }

    /// The token from an event's `_id` document, or nil when it is not one of ours.
    public init?(_ document: BSONDocument) {
        guard document.count == 1, let data = document["_data"]?.stringValue else { return nil }
        let digits = Array(data.utf8)
        guard digits.count == 16 || (digits.count == 18 && data.hasSuffix("01")),
            let sequence = UInt64(String(decoding: digits.prefix(16), as: UTF8.self), radix: 16),
            sequence <= UInt64(Int64.max)
        else { return nil }
        self.init(sequence: Int64(sequence), isInvalidate: digits.count == 18)
    }

    /// Written digit by digit: every event's token is formatted (its `_id`, the trigger's saved id), and
    /// `String(_:radix:)` plus padding cost several allocations.
    public var data: String {
        let count = isInvalidate ? 18 : 16
        return String(unsafeUninitializedCapacity: count) { buffer in
            let digits: StaticString = "0123456789abcdef"
            let bits = UInt64(bitPattern: sequence)
            for i in 0..<16 {
                buffer[i] = digits.utf8Start[Int((bits >> UInt64(60 - 4 * i)) & 0xF)]
            }
            if isInvalidate {
                buffer[16] = UInt8(ascii: "0")
                buffer[17] = UInt8(ascii: "1")
            }
            return count
        }
    }

    public var document: BSONDocument { ["_data": .string(data)] }

    public var description: String { "{_data: \"\(data)\"}" }
}
