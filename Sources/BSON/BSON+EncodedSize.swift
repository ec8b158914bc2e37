/// What values cost once encoded as BSON, counted without encoding them: the encoder sizes its buffer with these,
/// and an update checks what it would grow a document to before it builds the result.
extension BSON {
    /// The bytes of this value inside an element (type byte and key excluded).
    package var encodedSize: Int {
        switch self {
        case .double, .datetime, .timestamp, .int64: return 8
        case .int32: return 4
        case .bool: return 1
        case .null, .undefined, .minKey, .maxKey: return 0
        case .objectId: return 12
        case .decimal128: return 16
        case .string(let string), .javascript(let string), .symbol(let string): return 5 + string.utf8.count
        // The old binary subtype 2 repeats the data's length inside the data.
        case .binary(let binary): return 5 + binary.data.count + (binary.subtype == 0x02 ? 4 : 0)
        case .regex(let regex): return regex.pattern.utf8.count + regex.options.utf8.count + 2
        case .dbPointer(let pointer): return 5 + pointer.namespace.utf8.count + 12
        case .document(let document): return document.encodedSize
        case .array(let elements):
            var size = 5
            for (index, element) in elements.enumerated() {
                size += Self.elementOverhead(keyBytes: Self.arrayKeyLength(index)) + element.encodedSize
            }
            return size
        case .javascriptWithScope(let code): return 4 + 5 + code.code.utf8.count + code.scope.encodedSize
        }
    }

    /// An element's type byte and key with its terminator.
    package static func elementOverhead(keyBytes: Int) -> Int { 2 + keyBytes }

    /// The length of `index` written in decimal, as array keys are.
    package static func arrayKeyLength(_ index: Int) -> Int {
        var digits = 1
        var rest = index / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        return digits
    }
}

extension BSONDocument {
    /// The bytes of this document encoded as BSON.
    package var encodedSize: Int {
        var size = 5
        for (key, value) in self { size += BSON.elementOverhead(keyBytes: key.utf8.count) + value.encodedSize }
        return size
    }
}
