#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a document as BSON in two passes: the first measures it and finds every reason it cannot be
/// encoded (a NUL in a key, nesting too deep, a length over BSON's limit), the second writes it into a
/// buffer of exactly that size through a pointer, so no byte is written twice and nothing grows or checks
/// capacity on the way. Each container's length is filled in once its end is reached.
enum BSONEncoder {
    /// The document's bytes; `depth` is 1 for a top-level document.
    static func encode(_ document: BSONDocument) throws(BSONEncodingError) -> [UInt8] {
        let size = try Measure.document(document, depth: 1)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var writer = Writer(base: buffer.baseAddress!)
            writer.document(document)
            assert(writer.count == size, "BSON measured \(size) bytes but wrote \(writer.count)")
            count = writer.count
        }
    }

    /// The first pass: sizes, and every error in document order (key by key, depth first).
    private enum Measure {
        static func document(_ document: BSONDocument, depth: Int) throws(BSONEncodingError) -> Int {
            var total = 5
            for (key, value) in zip(document.keys, document.values) {
                do {
                    total += 1 + (try cString(key, what: "key")) + (try payload(value, depth: depth))
                } catch {
                    throw error.within(key)
                }
            }
            return Int(try length(total, "document"))
        }

        static func array(_ array: [BSON], depth: Int) throws(BSONEncodingError) -> Int {
            var total = 5
            for (index, value) in array.enumerated() {
                do {
                    total +=
                        BSON.elementOverhead(keyBytes: BSON.arrayKeyLength(index)) + (try payload(value, depth: depth))
                } catch {
                    throw error.within(String(index))
                }
            }
            return Int(try length(total, "document"))
        }

        static func payload(_ value: BSON, depth: Int) throws(BSONEncodingError) -> Int {
            switch value {
            case .double, .datetime, .timestamp, .int64, .int32, .bool, .objectId, .decimal128, .undefined, .null,
                .minKey, .maxKey:
                return value.encodedSize
            case .string(let s), .javascript(let s), .symbol(let s): return try string(s)
            case .document(let d):
                try checkDepth(depth)
                return try document(d, depth: depth + 1)
            case .array(let a):
                try checkDepth(depth)
                return try array(a, depth: depth + 1)
            case .binary(let b):
                if b.subtype == 0x02 {
                    _ = try length(b.data.count + 4, "binary data")
                    return 4 + 1 + 4 + b.data.count
                }
                _ = try length(b.data.count, "binary data")
                return 4 + 1 + b.data.count
            case .regex(let r):
                let pattern = try cString(r.pattern, what: "regular expression pattern")
                return pattern + (try cString(r.options, what: "regular expression options"))
            case .dbPointer(let p): return try string(p.namespace) + 12
            case .javascriptWithScope(let c):
                try checkDepth(depth)
                let total = 4 + (try string(c.code)) + (try document(c.scope, depth: depth + 1))
                return Int(try length(total, "document"))
            }
        }

        static func string(_ string: String) throws(BSONEncodingError) -> Int {
            Int(try length(string.utf8.count + 1, "string")) + 4
        }

        /// Keys and regular expression parts end at the first NUL, so one inside them cannot be written.
        static func cString(_ string: String, what: String) throws(BSONEncodingError) -> Int {
            let utf8 = string.utf8
            let hasNUL = utf8.withContiguousStorageIfAvailable {
                $0.baseAddress.map { memchr($0, 0, utf8.count) != nil } ?? false
            }
            if hasNUL ?? utf8.contains(0) { throw BSONEncodingError(path: "", "\(what) contains a NUL byte") }
            return utf8.count + 1
        }

        static func checkDepth(_ depth: Int) throws(BSONEncodingError) {
            guard depth < BSONDocument.maximumNestingDepth else {
                throw BSONEncodingError(
                    path: "", "documents nest deeper than \(BSONDocument.maximumNestingDepth) levels")
            }
        }
    }

    static func length(_ count: Int, _ what: String) throws(BSONEncodingError) -> Int32 {
        guard let length = Int32(exactly: count) else {
            throw BSONEncodingError(path: "", "\(what) of \(count) bytes is too long for BSON")
        }
        return length
    }

    /// The second pass, into a buffer the first pass sized: nothing here can fail.
    private struct Writer {
        let base: UnsafeMutablePointer<UInt8>
        var count = 0

        mutating func document(_ document: BSONDocument) {
            let start = openLength()
            for (key, value) in zip(document.keys, document.values) {
                byte(value.typeByte)
                utf8(key)
                byte(0)
                payload(value)
            }
            byte(0)
            closeLength(openedAt: start)
        }

        mutating func array(_ array: [BSON]) {
            let start = openLength()
            for (index, value) in array.enumerated() {
                byte(value.typeByte)
                indexKey(index)
                payload(value)
            }
            byte(0)
            closeLength(openedAt: start)
        }

        mutating func payload(_ value: BSON) {
            switch value {
            case .double(let d): integer(d.bitPattern)
            case .string(let s), .javascript(let s), .symbol(let s): string(s)
            case .document(let d): document(d)
            case .array(let a): array(a)
            case .binary(let b):
                if b.subtype == 0x02 {
                    integer(Int32(truncatingIfNeeded: b.data.count + 4))
                    byte(b.subtype)
                    integer(Int32(truncatingIfNeeded: b.data.count))
                } else {
                    integer(Int32(truncatingIfNeeded: b.data.count))
                    byte(b.subtype)
                }
                b.data.withUnsafeBytes { raw($0) }
            case .undefined, .null, .minKey, .maxKey: break
            case .objectId(let id): withUnsafeBytes(of: id.bytes) { raw($0) }
            case .bool(let b): byte(b ? 1 : 0)
            case .datetime(let d): integer(d.millisecondsSinceEpoch)
            case .regex(let r):
                utf8(r.pattern)
                byte(0)
                utf8(r.options)
                byte(0)
            case .dbPointer(let p):
                string(p.namespace)
                withUnsafeBytes(of: p.id.bytes) { raw($0) }
            case .javascriptWithScope(let c):
                let start = openLength()
                string(c.code)
                document(c.scope)
                closeLength(openedAt: start)
            case .int32(let i): integer(i)
            case .timestamp(let t): integer(UInt64(t.time) << 32 | UInt64(t.increment))
            case .int64(let i): integer(i)
            case .decimal128(let d):
                integer(d.low)
                integer(d.high)
            }
        }

        mutating func byte(_ value: UInt8) {
            base[count] = value
            count += 1
        }

        mutating func raw(_ bytes: UnsafeRawBufferPointer) {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
            count += bytes.count
        }

        mutating func integer<T: FixedWidthInteger>(_ value: T) {
            UnsafeMutableRawPointer(base + count).storeBytes(of: value.littleEndian, as: T.self)
            count += MemoryLayout<T>.size
        }

        /// A string's UTF-8, without terminator (a native string's is contiguous: one copy).
        mutating func utf8(_ string: String) {
            let utf8 = string.utf8
            let copied: Void? = utf8.withContiguousStorageIfAvailable { raw(UnsafeRawBufferPointer($0)) }
            if copied == nil {
                for unit in utf8 { byte(unit) }
            }
        }

        mutating func string(_ string: String) {
            integer(Int32(truncatingIfNeeded: string.utf8.count + 1))
            utf8(string)
            byte(0)
        }

        mutating func indexKey(_ index: Int) {
            if index < 10 {
                byte(UInt8(truncatingIfNeeded: 0x30 + index))
            } else {
                let digits = BSON.arrayKeyLength(index)
                var rest = index
                for position in stride(from: digits - 1, through: 0, by: -1) {
                    base[count + position] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                    rest /= 10
                }
                count += digits
            }
            byte(0)
        }

        mutating func openLength() -> Int {
            let start = count
            count += 4
            return start
        }

        mutating func closeLength(openedAt start: Int) {
            UnsafeMutableRawPointer(base + start).storeBytes(
                of: Int32(truncatingIfNeeded: count - start).littleEndian, as: Int32.self)
        }
    }
}
