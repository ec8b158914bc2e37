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
package struct BSONDocumentWriter: ~Copyable, @unchecked Sendable {
    // Unchecked: the buffer is this writer's alone (it cannot be copied) until `finish` hands its bytes on.
    /// Bytes written so far, then room; grown by doubling. Written through the pointer, so each of the thirty or so
    /// fields a record takes is a copy, without an `Array`'s uniqueness and capacity checks per append.
    private var buffer: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    package init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        buffer = .allocate(capacity: self.capacity)
        raw(4) { _ in }
    }

    deinit { buffer.deallocate() }

    package mutating func append(_ key: StaticString, _ value: String) {
        field(0x02, key)
        string(value)
    }

    package mutating func append(_ key: StaticString, _ value: Int64) {
        field(0x12, key)
        integer(value)
    }

    package mutating func append(_ key: StaticString, _ value: Double) {
        field(0x01, key)
        integer(value.bitPattern)
    }

    package mutating func append(_ key: StaticString, _ value: BSONDate) {
        field(0x09, key)
        integer(value.millisecondsSinceEpoch)
    }

    package mutating func append(_ key: StaticString, _ value: ObjectId) {
        field(0x07, key)
        withUnsafeBytes(of: value.bytes) { bytes($0) }
    }

    /// An array of strings (keys "0", "1", …).
    package mutating func append(_ key: StaticString, strings: [String]) {
        array(key, of: 0x02, strings) { $0.string($1) }
    }

    /// An array of documents given as their BSON bytes (keys "0", "1", …).
    package mutating func append(_ key: StaticString, documents: [[UInt8]]) {
        array(key, of: 0x03, documents) { writer, document in document.withUnsafeBytes { writer.bytes($0) } }
    }

    /// An array field whose elements all have BSON type `type`, each written by `write` after its key.
    private mutating func array<Element>(
        _ key: StaticString, of type: UInt8, _ elements: [Element], _ write: (inout Self, Element) -> Void
    ) {
        field(0x04, key)
        let start = count
        raw(4) { _ in }
        for (index, element) in elements.enumerated() {
            byte(type)
            var key = String(index)
            key.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
            byte(0)
            write(&self, element)
        }
        byte(0)
        closeLength(at: start)
    }

    /// The document's bytes.
    package consuming func finish() -> [UInt8] {
        byte(0)
        closeLength(at: 0)
        return Array(UnsafeBufferPointer(start: buffer, count: count))
    }

    private mutating func field(_ type: UInt8, _ key: StaticString) {
        byte(type)
        key.withUTF8Buffer { bytes(UnsafeRawBufferPointer($0)) }
        byte(0)
    }

    private mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            integer(Int32(truncatingIfNeeded: utf8.count + 1))
            bytes(UnsafeRawBufferPointer(utf8))
        }
        byte(0)
    }

    private mutating func integer<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes($0) }
    }

    private mutating func byte(_ value: UInt8) {
        raw(1) { $0.pointee = value }
    }

    private mutating func bytes(_ source: UnsafeRawBufferPointer) {
        guard let base = source.baseAddress else { return }
        raw(source.count) { UnsafeMutableRawPointer($0).copyMemory(from: base, byteCount: source.count) }
    }

    /// Makes room for `size` more bytes and lets `write` fill them.
    private mutating func raw(_ size: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Void) {
        if count + size > capacity {
            let grown = max(count + size, capacity * 2)
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            larger.update(from: buffer, count: count)
            buffer.deallocate()
            (buffer, capacity) = (larger, grown)
        }
        write(buffer + count)
        count += size
    }

    private mutating func closeLength(at start: Int) {
        let length = Int32(truncatingIfNeeded: count - start).littleEndian
        withUnsafeBytes(of: length) {
            UnsafeMutableRawPointer(buffer + start).copyMemory(from: $0.baseAddress!, byteCount: 4)
        }
    }
}
