#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads one BSON document from a byte buffer. Every length is checked against the end of its enclosing
/// document before anything is read, so malformed input yields a `BSONDecodingError`, never an
/// out-of-bounds read. Nesting is handled with an explicit stack instead of recursion, so the depth of the
/// input cannot exhaust the thread's stack; `BSONDocument.maximumNestingDepth` bounds it.
struct BSONDecoder {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0

    /// A document or array being read.
    private struct Frame {
        var document = BSONDocument()
        var array: [BSON] = []
        let isArray: Bool
        /// Offset of the container's terminating NUL.
        let end: Int
        /// The key this container has in its parent, and where that key starts.
        let key: String
        let keyOffset: Int
        /// Set when this frame is the scope of a code-with-scope value.
        var code: String? = nil

        /// `length` is the container's size in bytes: a few elements' worth of room is reserved up
        /// front, so typical containers fill without growing one element at a time.
        init(isArray: Bool, length: Int, end: Int, key: String, keyOffset: Int, code: String? = nil) {
            self.isArray = isArray
            self.end = end
            self.key = key
            self.keyOffset = keyOffset
            self.code = code
            let estimate = min(8, (length - 5) / 6)
            guard estimate > 1 else { return }
            if isArray { array.reserveCapacity(estimate) } else { document.reserveCapacity(estimate) }
        }
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<BSONDocument, BSONDecodingError> {
        var decoder = BSONDecoder(bytes: bytes)
        return Result { () throws(BSONDecodingError) in try decoder.topLevelDocument() }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func topLevelDocument() throws(BSONDecodingError) -> BSONDocument {
        let count = bytes.count
        guard count >= 5 else {
            throw BSONDecodingError(.truncated, at: 0, "a document needs at least 5 bytes, got \(count)")
        }
        let declared = Int(try readInt32(limit: count))
        guard declared >= 5 else {
            throw BSONDecodingError(.invalidLength, at: 0, "document length \(declared) is less than the minimum of 5")
        }
        guard declared <= count else {
            throw BSONDecodingError(.truncated, at: 0, "document length \(declared) exceeds the \(count) bytes given")
        }
        guard declared == count else {
            throw BSONDecodingError(
                .trailingBytes, at: declared, "\(count - declared) bytes follow the document's declared end")
        }
        guard bytes[declared - 1] == 0 else {
            throw BSONDecodingError(.missingTerminator, at: declared - 1, "document does not end with a NUL byte")
        }
        var stack = [Frame(isArray: false, length: declared, end: declared - 1, key: "", keyOffset: 0)]
        while true {
            let end = stack[stack.count - 1].end
            if offset == end {
                // The terminator itself was checked when the frame was opened.
                offset += 1
                let frame = stack.removeLast()
                if stack.isEmpty { return frame.document }
                let value: BSON
                if frame.isArray {
                    value = .array(frame.array)
                } else if let code = frame.code {
                    value = .javascriptWithScope(BSONCodeWithScope(code: code, scope: frame.document))
                } else {
                    value = .document(frame.document)
                }
                try append(value, key: frame.key, keyOffset: frame.keyOffset, to: &stack)
                continue
            }

            let typeOffset = offset
            let type = bytes[offset]
            offset += 1
            if type == 0 {
                throw BSONDecodingError(
                    .invalidLength, at: typeOffset,
                    "document ends at byte \(typeOffset) but its length puts the end at byte \(end)")
            }
            let inArray = stack[stack.count - 1].isArray
            let keyOffset = offset
            // Array keys should be "0", "1", …; like the reference drivers, we accept any and renumber.
            let key: String
            if inArray {
                try skipCString(limit: end, what: "array key")
                key = ""
            } else {
                key = try readCString(limit: end, what: "key")
            }

            let value: BSON
            switch type {
            case 0x01:
                value = .double(Double(bitPattern: try readUInt64(limit: end)))
            case 0x02:
                value = .string(try readString(limit: end))
            case 0x03, 0x04:
                let start = offset
                let length = try readContainerLength(limit: end, what: type == 0x03 ? "document" : "array")
                try checkDepth(stack.count, at: start)
                stack.append(
                    Frame(
                        isArray: type == 0x04, length: length, end: start + length - 1, key: key, keyOffset: keyOffset))
                continue
            case 0x05:
                value = .binary(try readBinary(limit: end))
            case 0x06:
                value = .undefined
            case 0x07:
                value = .objectId(try readObjectId(limit: end))
            case 0x08:
                let boolOffset = offset
                guard offset < end else { throw truncated(at: offset, "boolean") }
                offset += 1
                switch bytes[boolOffset] {
                case 0: value = .bool(false)
                case 1: value = .bool(true)
                case let other:
                    throw BSONDecodingError(.invalidBoolean, at: boolOffset, "boolean byte is \(other), not 0 or 1")
                }
            case 0x09:
                value = .datetime(BSONDate(millisecondsSinceEpoch: Int64(bitPattern: try readUInt64(limit: end))))
            case 0x0A:
                value = .null
            case 0x0B:
                let pattern = try readCString(limit: end, what: "regular expression pattern")
                let options = try readCString(limit: end, what: "regular expression options")
                value = .regex(BSONRegularExpression(pattern: pattern, options: options))
            case 0x0C:
                let namespace = try readString(limit: end)
                value = .dbPointer(BSONDBPointer(namespace: namespace, id: try readObjectId(limit: end)))
            case 0x0D:
                value = .javascript(try readString(limit: end))
            case 0x0E:
                value = .symbol(try readString(limit: end))
            case 0x0F:
                let start = offset
                let total = Int(try readInt32(limit: end))
                guard total >= 14 else {
                    throw BSONDecodingError(
                        .invalidLength, at: start, "code-with-scope length \(total) is less than the minimum of 14")
                }
                guard total <= end - start else {
                    throw truncated(at: start, "code-with-scope of \(total) bytes")
                }
                let elementEnd = start + total
                let code = try readString(limit: elementEnd)
                let scopeStart = offset
                let scopeLength = try readContainerLength(limit: elementEnd, what: "code-with-scope scope")
                guard scopeStart + scopeLength == elementEnd else {
                    throw BSONDecodingError(
                        .invalidLength, at: start,
                        "code-with-scope length \(total) does not match its code and scope (\(elementEnd - scopeStart - scopeLength) bytes unaccounted for)"
                    )
                }
                try checkDepth(stack.count, at: scopeStart)
                stack.append(
                    Frame(
                        isArray: false, length: scopeLength, end: elementEnd - 1, key: key, keyOffset: keyOffset,
                        code: code))
                continue
            case 0x10:
                value = .int32(try readInt32(limit: end))
            case 0x11:
                let bits = try readUInt64(limit: end)
                value = .timestamp(BSONTimestamp(time: UInt32(bits >> 32), increment: UInt32(truncatingIfNeeded: bits)))
            case 0x12:
                value = .int64(Int64(bitPattern: try readUInt64(limit: end)))
            case 0x13:
                let low = try readUInt64(limit: end)
                value = .decimal128(Decimal128(high: try readUInt64(limit: end), low: low))
            case 0x7F:
                value = .maxKey
            case 0xFF:
                value = .minKey
            default:
                throw BSONDecodingError(
                    .unknownType, at: typeOffset, "unknown element type 0x\(String(type, radix: 16, uppercase: true))")
            }
            try append(value, key: key, keyOffset: keyOffset, to: &stack)
        }
    }

    private func append(_ value: BSON, key: String, keyOffset: Int, to stack: inout [Frame])
        throws(BSONDecodingError)
    {
        let top = stack.count - 1
        if stack[top].isArray {
            stack[top].array.append(value)
        } else if !stack[top].document.appendUnique(key, value) {
            throw BSONDecodingError(.duplicateKey, at: keyOffset, "duplicate key '\(key)'")
        }
    }

    private func checkDepth(_ depth: Int, at position: Int) throws(BSONDecodingError) {
        guard depth < BSONDocument.maximumNestingDepth else {
            throw BSONDecodingError(
                .nestingTooDeep, at: position,
                "documents nest deeper than \(BSONDocument.maximumNestingDepth) levels")
        }
    }

    private func truncated(at position: Int, _ what: String) -> BSONDecodingError {
        BSONDecodingError(.truncated, at: position, "\(what) runs past the end of its enclosing document")
    }

    // MARK: Primitive reads. `limit` is the first offset the value may not touch.

    private mutating func readInt32(limit: Int) throws(BSONDecodingError) -> Int32 {
        guard limit - offset >= 4 else { throw truncated(at: offset, "int32") }
        let value = UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: offset, as: Int32.self)
        offset += 4
        return Int32(littleEndian: value)
    }

    private mutating func readUInt64(limit: Int) throws(BSONDecodingError) -> UInt64 {
        guard limit - offset >= 8 else { throw truncated(at: offset, "8-byte value") }
        let value = UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return UInt64(littleEndian: value)
    }

    private mutating func readObjectId(limit: Int) throws(BSONDecodingError) -> ObjectId {
        guard limit - offset >= 12 else { throw truncated(at: offset, "ObjectId") }
        let id = ObjectId(reading: UnsafeRawPointer(bytes.baseAddress!) + offset)
        offset += 12
        return id
    }

    /// Reads a document's length and checks that it fits before `limit` and ends with a NUL byte.
    private mutating func readContainerLength(limit: Int, what: String) throws(BSONDecodingError) -> Int {
        let start = offset
        let length = Int(try readInt32(limit: limit))
        guard length >= 5 else {
            throw BSONDecodingError(.invalidLength, at: start, "\(what) length \(length) is less than the minimum of 5")
        }
        guard length <= limit - start else { throw truncated(at: start, "\(what) of \(length) bytes") }
        guard bytes[start + length - 1] == 0 else {
            throw BSONDecodingError(.missingTerminator, at: start + length - 1, "\(what) does not end with a NUL byte")
        }
        return length
    }

    /// A length-prefixed string: int32 length including the NUL, the UTF-8 bytes, NUL.
    private mutating func readString(limit: Int) throws(BSONDecodingError) -> String {
        let start = offset
        let length = Int(try readInt32(limit: limit))
        guard length >= 1 else {
            throw BSONDecodingError(.invalidLength, at: start, "string length \(length) is less than the minimum of 1")
        }
        guard length <= limit - offset else { throw truncated(at: start, "string of \(length) bytes") }
        let terminator = offset + length - 1
        guard bytes[terminator] == 0 else {
            throw BSONDecodingError(.missingTerminator, at: terminator, "string does not end with a NUL byte")
        }
        let string = try makeString(offset..<terminator)
        offset = terminator + 1
        return string
    }

    private mutating func readCString(limit: Int, what: String) throws(BSONDecodingError) -> String {
        let start = offset
        try skipCString(limit: limit, what: what)
        return try makeString(start..<(offset - 1))
    }

    private mutating func skipCString(limit: Int, what: String) throws(BSONDecodingError) {
        var i = offset
        while i < limit && bytes[i] != 0 { i += 1 }
        guard i < limit else {
            throw BSONDecodingError(
                .missingTerminator, at: offset, "\(what) has no NUL terminator before the end of its document")
        }
        offset = i + 1
    }

    private func makeString(_ range: Range<Int>) throws(BSONDecodingError) -> String {
        let utf8 = UnsafeBufferPointer(rebasing: bytes[range])
        // Decoding replaces invalid sequences, so the bytes come back unchanged exactly when they were valid.
        // (Much faster than String(validating:), which takes a generic path.)
        var string = String(decoding: utf8, as: UTF8.self)
        let unchanged = string.withUTF8 { decoded in
            decoded.count == utf8.count
                && (utf8.isEmpty || memcmp(decoded.baseAddress!, utf8.baseAddress!, utf8.count) == 0)
        }
        guard unchanged else {
            throw BSONDecodingError(.invalidUTF8, at: range.lowerBound, "string is not valid UTF-8")
        }
        return string
    }

    private mutating func readBinary(limit: Int) throws(BSONDecodingError) -> BSONBinary {
        let start = offset
        let length = Int(try readInt32(limit: limit))
        guard length >= 0 else {
            throw BSONDecodingError(.invalidLength, at: start, "binary length \(length) is negative")
        }
        guard length < limit - offset else { throw truncated(at: start, "binary of \(length) bytes") }
        let subtype = bytes[offset]
        offset += 1
        var dataLength = length
        if subtype == 0x02 {
            // The old binary subtype repeats the length of its data inside it.
            guard length >= 4 else {
                throw BSONDecodingError(
                    .invalidBinary, at: start, "binary subtype 2 of \(length) bytes has no inner length")
            }
            let innerOffset = offset
            let inner = Int(try readInt32(limit: limit))
            guard inner == length - 4 else {
                throw BSONDecodingError(
                    .invalidBinary, at: innerOffset,
                    "binary subtype 2 inner length \(inner) does not match its outer length \(length) minus 4")
            }
            dataLength = inner
        }
        let data = Array(UnsafeBufferPointer(rebasing: bytes[offset..<(offset + dataLength)]))
        offset += dataLength
        return BSONBinary(subtype: subtype, data: data)
    }
}
