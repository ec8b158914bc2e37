/// Writes a BSON document field by field straight into its bytes, for hot paths that would otherwise build a
/// `BSONDocument` only to encode it (every served function call records a run). Field names are literals, so
/// they hold no NUL byte; the result is well-formed BSON by construction.
///
/// ```swift
/// var writer = BSONDocumentWriter()
/// writer.append("function", "ping")
/// writer.append("attempt", Int64(1))
/// let bytes = writer.finish()
/// ```
public struct BSONDocumentWriter: Sendable {
    private var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(contentsOf: [0, 0, 0, 0])
    }

    public mutating func append(_ key: StaticString, _ value: String) {
        field(0x02, key)
        string(value)
    }

    public mutating func append(_ key: StaticString, _ value: Int64) {
        field(0x12, key)
        integer(value)
    }

    public mutating func append(_ key: StaticString, _ value: Double) {
        field(0x01, key)
        integer(value.bitPattern)
    }

    public mutating func append(_ key: StaticString, _ value: BSONDate) {
        field(0x09, key)
        integer(value.millisecondsSinceEpoch)
    }

    public mutating func append(_ key: StaticString, _ value: ObjectId) {
        field(0x07, key)
        withUnsafeBytes(of: value.bytes) { bytes.append(contentsOf: $0) }
    }

    /// An array of strings (keys "0", "1", …).
    public mutating func append(_ key: StaticString, strings: [String]) {
        array(key, of: 0x02, strings) { $0.string($1) }
    }

    /// An array of documents given as their BSON bytes (keys "0", "1", …).
    public mutating func append(_ key: StaticString, documents: [[UInt8]]) {
        array(key, of: 0x03, documents) { $0.bytes.append(contentsOf: $1) }
    }

    /// An array field whose elements all have BSON type `type`, each written by `write` after its key.
    private mutating func array<Element>(
        _ key: StaticString, of type: UInt8, _ elements: [Element], _ write: (inout Self, Element) -> Void
    ) {
        field(0x04, key)
        let start = bytes.count
        bytes.append(contentsOf: [0, 0, 0, 0])
        for (index, element) in elements.enumerated() {
            bytes.append(type)
            bytes.append(contentsOf: String(index).utf8)
            bytes.append(0)
            write(&self, element)
        }
        bytes.append(0)
        closeLength(at: start)
    }

    /// The document's bytes.
    public consuming func finish() -> [UInt8] {
        bytes.append(0)
        closeLength(at: 0)
        return bytes
    }

    private mutating func field(_ type: UInt8, _ key: StaticString) {
        bytes.append(type)
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(0)
    }

    private mutating func string(_ value: String) {
        integer(Int32(truncatingIfNeeded: value.utf8.count + 1))
        bytes.append(contentsOf: value.utf8)
        bytes.append(0)
    }

    private mutating func integer<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func closeLength(at start: Int) {
        let length = Int32(truncatingIfNeeded: bytes.count - start).littleEndian
        withUnsafeBytes(of: length) { length in
            for offset in 0..<4 { bytes[start + offset] = length[offset] }
        }
    }
}
