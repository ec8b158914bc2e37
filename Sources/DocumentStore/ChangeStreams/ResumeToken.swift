import BSON

/// A change event's `_id`: `{"_data": "<hex>"}`, where the hex is the event's change-log sequence
/// (16 digits, so tokens sort like sequences), followed by `01` for the `invalidate` that ended a stream.
public struct ResumeToken: Sendable, Hashable, CustomStringConvertible {
    public var sequence: Int64
    /// True for an `invalidate` event's token, which only `startAfter` accepts.
    public var isInvalidate: Bool

    public init(sequence: Int64, isInvalidate: Bool = false) {
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

    public var data: String {
        let hex = String(UInt64(sequence), radix: 16)
        return String(repeating: "0", count: max(0, 16 - hex.count)) + hex + (isInvalidate ? "01" : "")
    }

    public var document: BSONDocument { ["_data": .string(data)] }

    public var description: String { "{_data: \"\(data)\"}" }
}
