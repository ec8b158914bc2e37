import BSON

/// How documents, change events and catalog options are stored as bytes: the one seam between the
/// store and its byte format. Until the BSON codec lands this is a compact private tagged encoding;
/// switching to BSON bytes changes only `encode`/`decode` below.
enum DocumentEncoding {
    /// Deepest nesting a stored document may have (MongoDB's own limit is in the same range).
    static let maximumDepth = 180

    static func encode(_ document: BSONDocument) throws(StoreError) -> [UInt8] {
        var writer = PrivateDocumentWriter()
        try writer.writeDocument(document, depth: 0)
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(StoreError) -> BSONDocument {
        var reader = PrivateDocumentReader(bytes: bytes)
        let document = try reader.readDocument(depth: 0)
        guard reader.position == bytes.count else { throw reader.corrupt("trailing bytes") }
        return document
    }
}

/// Writes the private tagged encoding: a BSON type byte per value, little-endian fixed-width numbers,
/// LEB128 lengths.
private struct PrivateDocumentWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    mutating func writeDocument(_ document: BSONDocument, depth: Int) throws(StoreError) {
        guard depth < DocumentEncoding.maximumDepth else {
            throw .location(15, "document nesting is deeper than \(DocumentEncoding.maximumDepth) levels")
        }
        writeLength(document.count)
        for (key, value) in document {
            writeString(key)
            try writeValue(value, depth: depth)
        }
    }

    mutating func writeValue(_ value: BSON, depth: Int) throws(StoreError) {
        bytes.append(value.typeByte)
        switch value {
        case .double(let d): writeFixed(d.bitPattern)
        case .string(let s), .javascript(let s), .symbol(let s): writeString(s)
        case .document(let d): try writeDocument(d, depth: depth + 1)
        case .array(let a):
            guard depth + 1 < DocumentEncoding.maximumDepth else {
                throw .location(15, "document nesting is deeper than \(DocumentEncoding.maximumDepth) levels")
            }
            writeLength(a.count)
            for element in a { try writeValue(element, depth: depth + 1) }
        case .binary(let b):
            bytes.append(b.subtype)
            writeLength(b.data.count)
            bytes.append(contentsOf: b.data)
        case .undefined, .null, .minKey, .maxKey: break
        case .objectId(let o): bytes.append(contentsOf: o.byteArray)
        case .bool(let b): bytes.append(b ? 1 : 0)
        case .datetime(let d): writeFixed(UInt64(bitPattern: d.millisecondsSinceEpoch))
        case .regex(let r):
            writeString(r.pattern)
            writeString(r.options)
        case .dbPointer(let p):
            writeString(p.namespace)
            bytes.append(contentsOf: p.id.byteArray)
        case .javascriptWithScope(let c):
            writeString(c.code)
            try writeDocument(c.scope, depth: depth + 1)
        case .int32(let i): writeFixed(UInt32(bitPattern: i))
        case .timestamp(let t):
            writeFixed(t.increment)
            writeFixed(t.time)
        case .int64(let i): writeFixed(UInt64(bitPattern: i))
        case .decimal128(let d):
            writeFixed(d.low)
            writeFixed(d.high)
        }
    }

    mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            writeLength(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func writeLength(_ length: Int) {
        var value = UInt64(length)
        repeat {
            let low = UInt8(value & 0x7F)
            value >>= 7
            bytes.append(value == 0 ? low : low | 0x80)
        } while value != 0
    }

    mutating func writeFixed<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}

private struct PrivateDocumentReader {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func corrupt(_ what: String) -> StoreError {
        .location(17_000, "stored document is corrupt at byte \(position): \(what)")
    }

    mutating func readDocument(depth: Int) throws(StoreError) -> BSONDocument {
        guard depth < DocumentEncoding.maximumDepth else { throw corrupt("nesting too deep") }
        let count = try readLength()
        var document = BSONDocument()
        for _ in 0..<count {
            let key = try readString()
            document.append(key, try readValue(depth: depth))
        }
        return document
    }

    mutating func readValue(depth: Int) throws(StoreError) -> BSON {
        let type = try readByte()
        switch type {
        case 0x01: return .double(Double(bitPattern: try readFixed(UInt64.self)))
        case 0x02: return .string(try readString())
        case 0x03: return .document(try readDocument(depth: depth + 1))
        case 0x04:
            guard depth + 1 < DocumentEncoding.maximumDepth else { throw corrupt("nesting too deep") }
            let count = try readLength()
            var elements: [BSON] = []
            elements.reserveCapacity(min(count, 1024))
            for _ in 0..<count { elements.append(try readValue(depth: depth + 1)) }
            return .array(elements)
        case 0x05:
            let subtype = try readByte()
            return .binary(BSONBinary(subtype: subtype, data: try readBytes(try readLength())))
        case 0x06: return .undefined
        case 0x07: return .objectId(try readObjectId())
        case 0x08: return .bool(try readByte() != 0)
        case 0x09: return .datetime(BSONDate(millisecondsSinceEpoch: Int64(bitPattern: try readFixed(UInt64.self))))
        case 0x0A: return .null
        case 0x0B:
            let pattern = try readString()
            return .regex(BSONRegularExpression(pattern: pattern, options: try readString()))
        case 0x0C:
            let namespace = try readString()
            return .dbPointer(BSONDBPointer(namespace: namespace, id: try readObjectId()))
        case 0x0D: return .javascript(try readString())
        case 0x0E: return .symbol(try readString())
        case 0x0F:
            let code = try readString()
            return .javascriptWithScope(BSONCodeWithScope(code: code, scope: try readDocument(depth: depth + 1)))
        case 0x10: return .int32(Int32(bitPattern: try readFixed(UInt32.self)))
        case 0x11:
            let increment = try readFixed(UInt32.self)
            return .timestamp(BSONTimestamp(time: try readFixed(UInt32.self), increment: increment))
        case 0x12: return .int64(Int64(bitPattern: try readFixed(UInt64.self)))
        case 0x13:
            let low = try readFixed(UInt64.self)
            return .decimal128(Decimal128(high: try readFixed(UInt64.self), low: low))
        case 0x7F: return .maxKey
        case 0xFF: return .minKey
        default: throw corrupt("unknown type byte \(type)")
        }
    }

    mutating func readByte() throws(StoreError) -> UInt8 {
        guard position < bytes.count else { throw corrupt("unexpected end") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func readBytes(_ count: Int) throws(StoreError) -> [UInt8] {
        guard count >= 0, count <= bytes.count - position else { throw corrupt("length \(count) past the end") }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    mutating func readLength() throws(StoreError) -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try readByte()
            guard shift < 63 else { throw corrupt("length too long") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        guard value <= UInt64(bytes.count) else { throw corrupt("length \(value) past the end") }
        return Int(value)
    }

    mutating func readString() throws(StoreError) -> String {
        let count = try readLength()
        guard count <= bytes.count - position else { throw corrupt("string past the end") }
        defer { position += count }
        return String(decoding: bytes[position..<position + count], as: UTF8.self)
    }

    mutating func readObjectId() throws(StoreError) -> ObjectId {
        guard let id = ObjectId(bytes: try readBytes(12)) else { throw corrupt("objectId") }
        return id
    }

    mutating func readFixed<T: FixedWidthInteger>(_: T.Type) throws(StoreError) -> T {
        let size = MemoryLayout<T>.size
        guard size <= bytes.count - position else { throw corrupt("number past the end") }
        var value: T = 0
        for i in 0..<size { value |= T(bytes[position + i]) << (8 * i) }
        position += size
        return value
    }
}
