#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads one BSON document from a byte buffer. Every length is checked against the end of its enclosing
/// document before anything is read, so malformed input yields a `BSONDecodingError`, never an
/// out-of-bounds read. Nesting is handled with an explicit stack instead of recursion, so the depth of the
/// input cannot exhaust the thread's stack; `BSONDocument.maximumNestingDepth` bounds it.
///
/// The container being filled is a local value, not the top of the stack (which holds only its
/// ancestors), so appending an element touches no array of frames; keys are checked for duplicates by
/// their bytes in the input (`KeyLedger`), not as strings.
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
        /// Where this document's keys start in the ledger.
        let ledgerStart: Int

        /// `length` is the container's size in bytes: a few elements' worth of room is reserved up
        /// front, so typical containers fill without growing one element at a time.
        init(
            isArray: Bool, length: Int, end: Int, key: String, keyOffset: Int, ledgerStart: Int, code: String? = nil
        ) {
            self.isArray = isArray
            self.end = end
            self.key = key
            self.keyOffset = keyOffset
            self.ledgerStart = ledgerStart
            self.code = code
            let estimate = min(8, (length - 5) / 6)
            guard estimate > 1 else { return }
            if isArray { array.reserveCapacity(estimate) } else { document.reserveCapacity(estimate) }
        }

        /// The finished container as a value.
        consuming func value() -> BSON {
            if isArray { return .array(array) }
            if let code { return .javascriptWithScope(BSONCodeWithScope(code: code, scope: document)) }
            return .document(document)
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
        var current = Frame(isArray: false, length: declared, end: declared - 1, key: "", keyOffset: 0, ledgerStart: 0)
        var ancestors: [Frame] = []
        var ledger = KeyLedger()
        while true {
            let end = current.end
            if offset == end {
                // The terminator itself was checked when the frame was opened.
                offset += 1
                guard let parent = ancestors.popLast() else { return current.document }
                let finished = consume current
                current = parent
                ledger.truncate(to: finished.ledgerStart)
                let (key, keyOffset) = (finished.key, finished.keyOffset)
                try append(finished.value(), key: key, keyOffset: keyOffset, to: &current, ledger: &ledger)
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
            let keyOffset = offset
            // Array keys should be "0", "1", …; like the reference drivers, we accept any and renumber.
            let key: String
            if current.isArray {
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
                try checkDepth(ancestors.count + 1, at: start)
                let child = Frame(
                    isArray: type == 0x04, length: length, end: start + length - 1, key: key, keyOffset: keyOffset,
                    ledgerStart: ledger.count)
                ancestors.append(consume current)
                current = child
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
                try checkDepth(ancestors.count + 1, at: scopeStart)
                let child = Frame(
                    isArray: false, length: scopeLength, end: elementEnd - 1, key: key, keyOffset: keyOffset,
                    ledgerStart: ledger.count, code: code)
                ancestors.append(consume current)
                current = child
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
            try append(value, key: key, keyOffset: keyOffset, to: &current, ledger: &ledger)
        }
    }

    private func append(
        _ value: consuming BSON, key: consuming String, keyOffset: Int, to frame: inout Frame,
        ledger: inout KeyLedger
    ) throws(BSONDecodingError) {
        if frame.isArray {
            frame.array.append(value)
            return
        }
        // Small documents compare the keys' bytes in the input; larger ones have a hash index.
        if frame.document.count < BSONDocument.indexThreshold {
            let length = key.utf8.count
            let print = KeyLedger.fingerprint(keyAt: keyOffset, length: length, in: bytes)
            guard !ledger.contains(print, keyAt: keyOffset, length: length, in: bytes, from: frame.ledgerStart) else {
                throw BSONDecodingError(.duplicateKey, at: keyOffset, "duplicate key '\(key)'")
            }
            ledger.record(print, keyAt: keyOffset)
            frame.document.append(key, value)
        } else if !frame.document.appendUnique(key, value) {
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
        let base = bytes.baseAddress!
        guard offset < limit, let terminator = memchr(base + offset, 0, limit - offset) else {
            throw BSONDecodingError(
                .missingTerminator, at: offset, "\(what) has no NUL terminator before the end of its document")
        }
        offset = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(terminator)) + 1
    }

    /// The string in `range`, which the caller knows is followed by a NUL byte.
    private func makeString(_ range: Range<Int>) throws(BSONDecodingError) -> String {
        // Most strings hold no NUL: read as a C string, they are validated and copied in one pass.
        let start = UnsafeRawPointer(bytes.baseAddress! + range.lowerBound).assumingMemoryBound(to: CChar.self)
        if let string = String(validatingCString: start), string.utf8.count == range.count {
            return string
        }
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

/// The keys of the documents being read, as positions in the input, for the duplicate check of small
/// documents: comparing a fingerprint (length and first bytes) and, only when those agree, the bytes
/// themselves costs far less than comparing strings. Documents nest, so their keys form a stack: a
/// document's keys start at its frame's `ledgerStart` and are dropped when it ends.
private struct KeyLedger {
    private var keys: [(fingerprint: UInt64, offset: Int)] = []

    var count: Int { keys.count }

    /// Length in the top byte, then up to the first seven bytes of the key.
    static func fingerprint(keyAt offset: Int, length: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let base = bytes.baseAddress! + offset
        var print: UInt64 = 0
        if offset + 8 <= bytes.count {
            let shift = 8 * (8 - min(length, 7))
            print = (UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)) << shift) >> shift
        } else {
            for i in 0..<min(length, 7) { print |= UInt64(base[i]) << (8 * i) }
        }
        return print | UInt64(truncatingIfNeeded: length) << 56
    }

    /// Whether a key with this fingerprint at `offset` is already among the keys from `start` on.
    func contains(
        _ print: UInt64, keyAt offset: Int, length: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: Int
    )
        -> Bool
    {
        let base = bytes.baseAddress!
        var i = start
        while i < keys.count {
            // Agreeing fingerprints are confirmed by the bytes with the terminating NUL: the length byte
            // wraps at 256, and a key of another length has its NUL elsewhere. The earlier key lies before
            // this one, so reading as many bytes from it stays inside the input.
            if keys[i].fingerprint == print && memcmp(base + keys[i].offset, base + offset, length + 1) == 0 {
                return true
            }
            i += 1
        }
        return false
    }

    mutating func record(_ print: UInt64, keyAt offset: Int) {
        if keys.capacity == 0 { keys.reserveCapacity(16) }
        keys.append((print, offset))
    }

    mutating func truncate(to count: Int) {
        guard count < keys.count else { return }
        keys.removeSubrange(count...)
    }
}
