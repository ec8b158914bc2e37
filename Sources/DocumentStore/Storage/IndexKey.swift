import BSON

/// An order-preserving byte encoding of BSON values: comparing two encodings byte by byte (as SQLite
/// compares blobs) gives the order of `BSON.compare`. A type-rank byte comes first, then the value;
/// every encoding is self-delimiting, so compound keys are plain concatenations and a descending
/// component is the bitwise complement of its ascending bytes.
///
/// Numbers of every type share one form — the value as a sortable double plus the exact integer
/// remainder — so `int32(1)`, `int64(1)` and `1.0` give the same key. Decimal128 is approximated through
/// its nearest double; the planner never uses an index for a decimal128 query value.
enum IndexKey {
    static func encode(_ value: BSON) throws(StoreError) -> [UInt8] {
        var bytes: [UInt8] = []
        // Room for a scalar's key in one allocation: growing byte by byte reallocates several times.
        if case .string(let s) = value {
            bytes.reserveCapacity(s.utf8.count + 3)
        } else {
            bytes.reserveCapacity(24)
        }
        try append(value, to: &bytes, depth: 0)
        return bytes
    }

    /// The rank byte that starts every encoding of a value of this type.
    static func rankByte(of value: BSON) -> UInt8 { UInt8(value.canonicalTypeOrder + 2) }

    static func append(_ value: BSON, to bytes: inout [UInt8], depth: Int) throws(StoreError) {
        bytes.append(rankByte(of: value))
        try appendPayload(value, to: &bytes, depth: depth)
    }

    private static func appendPayload(_ value: BSON, to bytes: inout [UInt8], depth: Int) throws(StoreError) {
        guard depth < BSONDocument.maximumNestingDepth else {
            throw .location(15, "index key nesting is deeper than \(BSONDocument.maximumNestingDepth) levels")
        }
        switch value {
        case .minKey, .maxKey, .null, .undefined: break
        case .double, .int32, .int64, .decimal128: appendNumber(value, to: &bytes)
        case .string(let s), .symbol(let s), .javascript(let s): appendString(s, to: &bytes)
        case .document(let d): try appendDocument(d, to: &bytes, depth: depth)
        case .array(let a):
            for element in a { try append(element, to: &bytes, depth: depth + 1) }
            bytes.append(0)
        case .binary(let b):
            appendBigEndian(UInt32(truncatingIfNeeded: b.data.count), to: &bytes)
            bytes.append(b.subtype)
            bytes.append(contentsOf: b.data)
        case .objectId(let o): bytes.append(contentsOf: o.byteArray)
        case .bool(let b): bytes.append(b ? 1 : 0)
        case .datetime(let d): appendBigEndian(UInt64(bitPattern: d.millisecondsSinceEpoch) ^ (1 << 63), to: &bytes)
        case .timestamp(let t):
            appendBigEndian(t.time, to: &bytes)
            appendBigEndian(t.increment, to: &bytes)
        case .regex(let r):
            appendString(r.pattern, to: &bytes)
            appendString(r.options, to: &bytes)
        case .dbPointer(let p):
            appendString(p.namespace, to: &bytes)
            bytes.append(contentsOf: p.id.byteArray)
        case .javascriptWithScope(let c):
            appendString(c.code, to: &bytes)
            try appendDocument(c.scope, to: &bytes, depth: depth)
        }
    }

    /// Field by field: the value's rank, the key, the value; a zero byte (below every rank) ends it.
    private static func appendDocument(_ d: BSONDocument, to bytes: inout [UInt8], depth: Int) throws(StoreError) {
        for (key, value) in d {
            bytes.append(rankByte(of: value))
            appendString(key, to: &bytes)
            try appendPayload(value, to: &bytes, depth: depth + 1)
        }
        bytes.append(0)
    }

    /// UTF-8 with 0x00 escaped as 0x00 0xFF and ended by 0x00 0x00, so a prefix sorts first.
    private static func appendString(_ s: String, to bytes: inout [UInt8]) {
        // Most strings hold no 0x00: copied whole rather than byte by byte.
        if let copied = s.utf8.withContiguousStorageIfAvailable({ utf8 -> Bool in
            guard !utf8.contains(0) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }), copied {
            bytes.append(0)
            bytes.append(0)
            return
        }
        for byte in s.utf8 {
            bytes.append(byte)
            if byte == 0 { bytes.append(0xFF) }
        }
        bytes.append(0)
        bytes.append(0)
    }

    /// NaN (below every number) is one byte; other numbers are the nearest double made sortable and the
    /// exact remainder of an int64 that the double rounded, so large integers keep their order.
    private static func appendNumber(_ value: BSON, to bytes: inout [UInt8]) {
        var double: Double
        var remainder: Int64 = 0
        switch value {
        case .int32(let i): double = Double(i)
        case .int64(let i):
            double = Double(i)
            remainder = Int64(Int128(i) - Int128(double))
        default: double = value.doubleValue ?? .nan
        }
        if double.isNaN {
            bytes.append(0)
            return
        }
        if double == 0 { double = 0 }  // -0.0 equals 0.0
        let bits = double.bitPattern
        bytes.append(1)
        appendBigEndian(bits >> 63 == 1 ? ~bits : bits | (1 << 63), to: &bytes)
        appendBigEndian(UInt64(bitPattern: remainder) ^ (1 << 63), to: &bytes)
    }

    private static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// The smallest byte string greater than every string that starts with `prefix` (nil: no bound).
    static func successor(of prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }
}
