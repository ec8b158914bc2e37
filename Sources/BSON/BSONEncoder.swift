/// Writes BSON into one growing byte array; each document's length is reserved and filled in once its
/// end is known, so every byte is written once.
struct BSONEncoder {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends a document; `depth` is 1 for a top-level document.
    mutating func append(_ document: BSONDocument, depth: Int) throws(BSONEncodingError) {
        let start = openLength()
        for (key, value) in zip(document.keys, document.values) {
            do {
                bytes.append(value.typeByte)
                try appendCString(key, what: "key")
                try append(value, depth: depth)
            } catch {
                throw error.within(key)
            }
        }
        bytes.append(0)
        try closeLength(openedAt: start)
    }

    private mutating func append(_ array: [BSON], depth: Int) throws(BSONEncodingError) {
        let start = openLength()
        for (index, value) in array.enumerated() {
            do {
                bytes.append(value.typeByte)
                appendIndexKey(index)
                try append(value, depth: depth)
            } catch {
                throw error.within(String(index))
            }
        }
        bytes.append(0)
        try closeLength(openedAt: start)
    }

    /// Appends a value's payload; its type byte and key are already written.
    private mutating func append(_ value: BSON, depth: Int) throws(BSONEncodingError) {
        switch value {
        case .double(let d): appendInteger(d.bitPattern)
        case .string(let s), .javascript(let s), .symbol(let s): try appendString(s)
        case .document(let d):
            try checkDepth(depth)
            try append(d, depth: depth + 1)
        case .array(let a):
            try checkDepth(depth)
            try append(a, depth: depth + 1)
        case .binary(let b):
            if b.subtype == 0x02 {
                try appendInteger(length(b.data.count + 4, "binary data"))
                bytes.append(b.subtype)
                appendInteger(Int32(b.data.count))
            } else {
                try appendInteger(length(b.data.count, "binary data"))
                bytes.append(b.subtype)
            }
            bytes.append(contentsOf: b.data)
        case .undefined, .null, .minKey, .maxKey: break
        case .objectId(let id): withUnsafeBytes(of: id.bytes) { bytes.append(contentsOf: $0) }
        case .bool(let b): bytes.append(b ? 1 : 0)
        case .datetime(let d): appendInteger(d.millisecondsSinceEpoch)
        case .regex(let r):
            try appendCString(r.pattern, what: "regular expression pattern")
            try appendCString(r.options, what: "regular expression options")
        case .dbPointer(let p):
            try appendString(p.namespace)
            withUnsafeBytes(of: p.id.bytes) { bytes.append(contentsOf: $0) }
        case .javascriptWithScope(let c):
            try checkDepth(depth)
            let start = openLength()
            try appendString(c.code)
            try append(c.scope, depth: depth + 1)
            try closeLength(openedAt: start)
        case .int32(let i): appendInteger(i)
        case .timestamp(let t): appendInteger(UInt64(t.time) << 32 | UInt64(t.increment))
        case .int64(let i): appendInteger(i)
        case .decimal128(let d):
            appendInteger(d.low)
            appendInteger(d.high)
        }
    }

    private func checkDepth(_ depth: Int) throws(BSONEncodingError) {
        guard depth < BSONDocument.maximumNestingDepth else {
            throw BSONEncodingError(path: "", "documents nest deeper than \(BSONDocument.maximumNestingDepth) levels")
        }
    }

    private func length(_ count: Int, _ what: String) throws(BSONEncodingError) -> Int32 {
        guard let length = Int32(exactly: count) else {
            throw BSONEncodingError(path: "", "\(what) of \(count) bytes is too long for BSON")
        }
        return length
    }

    private mutating func appendInteger<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func appendString(_ string: String) throws(BSONEncodingError) {
        let utf8 = string.utf8
        try appendInteger(length(utf8.count + 1, "string"))
        // A native string's UTF-8 is contiguous: one copy, instead of the sequence's element by element.
        if utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: utf8)
        }
        bytes.append(0)
    }

    /// Keys and regular expression parts end at the first NUL, so one inside them cannot be written.
    private mutating func appendCString(_ string: String, what: String) throws(BSONEncodingError) {
        let utf8 = string.utf8
        let appended = utf8.withContiguousStorageIfAvailable { text -> Bool in
            guard !text.contains(0) else { return false }
            bytes.append(contentsOf: text)
            return true
        }
        switch appended {
        case true?: break
        case false?: throw BSONEncodingError(path: "", "\(what) contains a NUL byte")
        case nil:
            guard !utf8.contains(0) else { throw BSONEncodingError(path: "", "\(what) contains a NUL byte") }
            bytes.append(contentsOf: utf8)
        }
        bytes.append(0)
    }

    private mutating func appendIndexKey(_ index: Int) {
        if index < 10 {
            bytes.append(UInt8(truncatingIfNeeded: 0x30 + index))
        } else {
            bytes.append(contentsOf: String(index).utf8)
        }
        bytes.append(0)
    }

    private mutating func openLength() -> Int {
        let start = bytes.count
        bytes.append(contentsOf: [0, 0, 0, 0] as [UInt8])
        return start
    }

    private mutating func closeLength(openedAt start: Int) throws(BSONEncodingError) {
        let value = try length(bytes.count - start, "document")
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: start, as: Int32.self) }
    }
}
