/// A byte-level JSON parser that builds BSON values directly, keeping key order and number types.
///
/// It is iterative (an explicit stack of open containers), so deep input costs heap, not call stack; nesting past
/// `ExtendedJSON.maximumDepth` is an error.
struct ExtendedJSONReader {
    enum TopLevel {
        /// One document; its own `$` keys stay fields.
        case document
        /// One document, or an array whose elements are such documents.
        case documents
        /// Any value; a type wrapper at the top becomes its BSON value.
        case value
    }

    /// How a finished value came about, which some type wrappers care about: `{"$minKey": 1}` needs a literal 1,
    /// not `{"$numberInt": "1"}`; `$timestamp` needs a plain document of literals.
    enum Origin {
        /// A JSON string, number, `true`, `false` or `null` as written.
        case literal
        /// A document that is no type wrapper and holds only literals.
        case plainDocument
        /// Anything else: a type wrapper, an array, a document holding containers.
        case other
    }

    /// An object or array still being read.
    struct Frame {
        var isArray: Bool
        /// Top-level documents are never type wrappers.
        var isTopLevelDocument: Bool
        /// Byte offset of the opening `{` or `[`, where wrapper errors point.
        var start: Int
        var document = BSONDocument()
        var elements: [BSON] = []
        var pendingKey = ""
        var hasDollarKey = false
        var onlyLiterals = true
        /// Bit i is set when the i-th value (i < 8) is a literal or a plain document.
        var plainMask: UInt8 = 0

        mutating func add(_ value: BSON, _ origin: Origin) {
            let index = document.count
            document.append(pendingKey, value)
            if origin != .literal { onlyLiterals = false }
            if origin != .other, index < 8 { plainMask |= 1 << UInt8(index) }
        }

        func isPlain(at index: Int) -> Bool { index < 8 && plainMask & (1 << UInt8(index)) != 0 }
    }

    let bytes: UnsafeBufferPointer<UInt8>
    /// False for plain JSON: `{"$numberLong": "5"}` stays a document with a `$numberLong` field.
    let readsTypeWrappers: Bool
    var position = 0
    /// Reused buffer for strings with escapes.
    var scratch: [UInt8] = []
    /// Set by `readString` when an escape produced U+0000 (BSON keys and regexes cannot hold it).
    var lastStringHadNUL = false

    init(bytes: UnsafeBufferPointer<UInt8>, readsTypeWrappers: Bool = true) {
        self.bytes = bytes
        self.readsTypeWrappers = readsTypeWrappers
    }

    static func read(
        _ bytes: UnsafeBufferPointer<UInt8>, _ top: TopLevel, readsTypeWrappers: Bool = true
    ) throws(ExtendedJSONError) -> BSON {
        var reader = ExtendedJSONReader(bytes: bytes, readsTypeWrappers: readsTypeWrappers)
        reader.skipWhitespace()
        let what = top == .value ? "value" : "document"
        guard reader.position < bytes.count else { throw reader.error("empty input: expected a \(what)") }
        let first = bytes[reader.position]
        switch top {
        case .document where first != UInt8(ascii: "{"):
            throw reader.error("expected '{' to start a document")
        case .documents where first != UInt8(ascii: "{") && first != UInt8(ascii: "["):
            throw reader.error("expected '{' or '[' to start a document or an array of documents")
        default:
            break
        }
        let value = try reader.readValue(top)
        reader.skipWhitespace()
        guard reader.position == bytes.count else { throw reader.error("unexpected text after the \(what)") }
        return value
    }

    func error(_ message: String, at offset: Int? = nil) -> ExtendedJSONError {
        ExtendedJSONError(in: bytes, at: offset ?? position, message)
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
            default: return
            }
        }
    }

    // MARK: Values and containers

    mutating func readValue(_ top: TopLevel) throws(ExtendedJSONError) -> BSON {
        var frames: [Frame] = []
        frames.reserveCapacity(4)
        var value: BSON
        var origin: Origin
        readOne: while true {
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input: expected a value") }
            let byte = bytes[position]
            let inDocumentList = top == .documents && frames.count == 1 && frames[0].isArray
            if inDocumentList && byte != UInt8(ascii: "{") {
                throw error("expected '{': the elements of a top-level array must be documents")
            }
            switch byte {
            case UInt8(ascii: "{"):
                let isTopLevelDocument = frames.isEmpty ? top != .value : inDocumentList
                if readsTypeWrappers, !isTopLevelDocument, let wrapped = readCommonWrapper() {
                    value = wrapped
                    origin = .other
                    break
                }
                guard frames.count < ExtendedJSON.maximumDepth else {
                    throw error("nesting deeper than \(ExtendedJSON.maximumDepth) levels")
                }
                var frame = Frame(isArray: false, isTopLevelDocument: isTopLevelDocument, start: position)
                // Room for a small document's fields at once: growing from empty reallocates twice by four.
                frame.document.reserveCapacity(4)
                frames.append(frame)
                position += 1
                skipWhitespace()
                if position < bytes.count && bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    (value, origin) = try finishObject(frames.removeLast())
                } else {
                    try readKey(into: &frames[frames.count - 1], expected: "expected '\"' to start a key, or '}'")
                    continue readOne
                }
            case UInt8(ascii: "["):
                guard frames.count < ExtendedJSON.maximumDepth else {
                    throw error("nesting deeper than \(ExtendedJSON.maximumDepth) levels")
                }
                let start = position
                position += 1
                skipWhitespace()
                // An empty array (a call without arguments) needs no frame.
                if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    value = .array([])
                    origin = .other
                } else {
                    frames.append(Frame(isArray: true, isTopLevelDocument: false, start: start))
                    continue readOne
                }
            case UInt8(ascii: "\""):
                value = .string(try readString())
                origin = .literal
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try readNumber()
                origin = .literal
            case UInt8(ascii: "t"):
                try readWord("true")
                value = .bool(true)
                origin = .literal
            case UInt8(ascii: "f"):
                try readWord("false")
                value = .bool(false)
                origin = .literal
            case UInt8(ascii: "n"):
                try readWord("null")
                value = .null
                origin = .literal
            default:
                throw error("unexpected \(describe(byte)): expected a value")
            }

            // Hand the finished value to its container, closing every container that ends right after it.
            while let last = frames.indices.last {
                skipWhitespace()
                if frames[last].isArray {
                    frames[last].elements.append(value)
                    guard position < bytes.count else {
                        throw error("unexpected end of input: expected ',' or ']' after array element")
                    }
                    switch bytes[position] {
                    case UInt8(ascii: ","):
                        position += 1
                        continue readOne
                    case UInt8(ascii: "]"):
                        position += 1
                        value = .array(frames.removeLast().elements)
                        origin = .other
                    default:
                        throw error("expected ',' or ']' after array element")
                    }
                } else {
                    frames[last].add(value, origin)
                    guard position < bytes.count else {
                        throw error("unexpected end of input: expected ',' or '}' after object member")
                    }
                    switch bytes[position] {
                    case UInt8(ascii: ","):
                        position += 1
                        skipWhitespace()
                        try readKey(into: &frames[last], expected: "expected '\"' to start a key after ','")
                        continue readOne
                    case UInt8(ascii: "}"):
                        position += 1
                        (value, origin) = try finishObject(frames.removeLast())
                    default:
                        throw error("expected ',' or '}' after object member")
                    }
                }
            }
            return value
        }
    }

    /// Reads `"key" :`, refusing duplicates and keys BSON cannot store.
    private mutating func readKey(into frame: inout Frame, expected: String) throws(ExtendedJSONError) {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error(expected) }
        let keyStart = position
        let key = try readString()
        if lastStringHadNUL { throw error("key contains U+0000, which BSON cannot store", at: keyStart) }
        if frame.document.contains(key) { throw error("duplicate key '\(key)'", at: keyStart) }
        // Checked on the decoded key: `"\u0024oid"` is the key `$oid` too.
        if key.utf8.first == UInt8(ascii: "$") { frame.hasDollarKey = true }
        frame.pendingKey = key
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
            throw error("expected ':' after object key")
        }
        position += 1
    }

    private func finishObject(_ frame: Frame) throws(ExtendedJSONError) -> (BSON, Origin) {
        if readsTypeWrappers, frame.hasDollarKey, !frame.isTopLevelDocument, let wrapped = try interpretWrapper(frame) {
            return (wrapped, .other)
        }
        return (.document(frame.document), frame.onlyLiterals ? .plainDocument : .other)
    }

    private mutating func readWord(_ word: StaticString) throws(ExtendedJSONError) {
        let start = position
        let matched = word.withUTF8Buffer { letters in
            guard position + letters.count <= bytes.count else { return false }
            for (i, letter) in letters.enumerated() where bytes[position + i] != letter { return false }
            position += letters.count
            return true
        }
        guard matched else { throw error("unexpected \(describe(bytes[start])): expected a value", at: start) }
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    // MARK: Strings

    /// Reads a JSON string starting at its opening quote.
    mutating func readString() throws(ExtendedJSONError) -> String {
        let open = position
        position += 1
        lastStringHadNUL = false
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[(open + 1)..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return try readEscapedString(from: open) }
            if byte < 0x20 { throw error("control character \(describe(byte)) in a string must be escaped") }
            position = byte < 0x80 ? position + 1 : try endOfUTF8Sequence(at: position)
        }
        throw error("unterminated string", at: open)
    }

    /// The slow path of `readString`, from the first backslash on.
    private mutating func readEscapedString(from open: Int) throws(ExtendedJSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[(open + 1)..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try readEscape()
            case 0..<0x20:
                throw error("control character \(describe(byte)) in a string must be escaped")
            case 0x80...:
                let end = try endOfUTF8Sequence(at: position)
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<end]))
                position = end
            default:
                scratch.append(byte)
                position += 1
            }
        }
        throw error("unterminated string", at: open)
    }

    private mutating func readEscape() throws(ExtendedJSONError) {
        let start = position
        guard position + 1 < bytes.count else { throw error("unterminated string") }
        let letter = bytes[position + 1]
        position += 2
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(letter)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHexQuad()
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("lone surrogate \\u\(String(scalar, radix: 16, uppercase: true))", at: start) }
                position += 2
                let low = try readHexQuad()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("lone surrogate \\u\(String(scalar, radix: 16, uppercase: true))", at: start)
                }
                scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("lone surrogate \\u\(String(scalar, radix: 16, uppercase: true))", at: start)
            }
            if scalar == 0 { lastStringHadNUL = true }
            appendUTF8(scalar)
        default:
            throw error("invalid escape sequence: '\\' followed by \(describe(letter))", at: start)
        }
    }

    private mutating func readHexQuad() throws(ExtendedJSONError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("expected four hexadecimal digits after \\u") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexValue(bytes[position]) else {
                throw error("expected four hexadecimal digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Validates the multi-byte UTF-8 sequence at `start` (no overlongs, no surrogates, nothing past U+10FFFF)
    /// and returns the offset just after it.
    private func endOfUTF8Sequence(at start: Int) throws(ExtendedJSONError) -> Int {
        let lead = bytes[start]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: throw error("invalid UTF-8 byte 0x\(String(lead, radix: 16, uppercase: true))", at: start)
        }
        guard start + length <= bytes.count else { throw error("truncated UTF-8 sequence", at: start) }
        guard secondRange.contains(bytes[start + 1]) else { throw error("invalid UTF-8 sequence", at: start) }
        for i in 2..<length where bytes[start + i] & 0xC0 != 0x80 {
            throw error("invalid UTF-8 sequence", at: start)
        }
        return start + length
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    // MARK: Numbers

    /// Exact powers of ten a double holds, for the fast path of decimal conversion.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    /// A JSON number: integers become int32 when they fit, else int64, else double; anything with a fraction or an
    /// exponent becomes a double.
    private mutating func readNumber() throws(ExtendedJSONError) -> BSON {
        let start = position
        guard let number = scanNumber(in: bytes, at: &position) else {
            throw error(numberSyntaxError(in: bytes, from: start), at: start)
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
        if let value = Self.value(of: number, text: text) { return value }
        throw error("number \(String(decoding: text, as: UTF8.self)) is out of range for a double", at: start)
    }

    /// The parts of a JSON number: its first 19 significant digits, a power of ten, and whether digits were dropped.
    struct ScannedNumber {
        var negative = false
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var truncated = false
        var isInteger = true
    }

    /// Scans the JSON number grammar `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`; nil on bad syntax.
    func scanNumber(in text: UnsafeBufferPointer<UInt8>, at position: inout Int) -> ScannedNumber? {
        var n = ScannedNumber()
        var i = position
        func isDigit(_ i: Int) -> Bool { i < text.count && text[i] &- UInt8(ascii: "0") < 10 }
        func takeDigit(_ d: UInt64, fraction: Bool) {
            if n.significantDigits < 19 {
                if n.mantissa != 0 || d != 0 {
                    n.mantissa = n.mantissa * 10 + d
                    n.significantDigits += 1
                }
                if fraction { n.exponent -= 1 }
            } else {
                if d != 0 { n.truncated = true }
                if !fraction { n.exponent += 1 }
            }
        }
        if i < text.count && text[i] == UInt8(ascii: "-") {
            n.negative = true
            i += 1
        }
        guard isDigit(i) else { return nil }
        if text[i] == UInt8(ascii: "0") {
            i += 1
            if isDigit(i) { return nil }
        } else {
            while isDigit(i) {
                takeDigit(UInt64(text[i] - UInt8(ascii: "0")), fraction: false)
                i += 1
            }
        }
        if i < text.count && text[i] == UInt8(ascii: ".") {
            n.isInteger = false
            i += 1
            guard isDigit(i) else { return nil }
            while isDigit(i) {
                takeDigit(UInt64(text[i] - UInt8(ascii: "0")), fraction: true)
                i += 1
            }
        }
        if i < text.count && (text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E")) {
            n.isInteger = false
            i += 1
            var negativeExponent = false
            if i < text.count && (text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-")) {
                negativeExponent = text[i] == UInt8(ascii: "-")
                i += 1
            }
            guard isDigit(i) else { return nil }
            var e = 0
            while isDigit(i) {
                // Saturate: past this, every double is zero or infinite anyway.
                if e < 100_000 { e = e * 10 + Int(text[i] - UInt8(ascii: "0")) }
                i += 1
            }
            n.exponent += negativeExponent ? -e : e
        }
        position = i
        return n
    }

    private func numberSyntaxError(in text: UnsafeBufferPointer<UInt8>, from start: Int) -> String {
        var i = start
        if i < text.count && text[i] == UInt8(ascii: "-") { i += 1 }
        guard i < text.count, text[i] &- UInt8(ascii: "0") < 10 else { return "expected a digit after '-'" }
        if text[i] == UInt8(ascii: "0"), i + 1 < text.count, text[i + 1] &- UInt8(ascii: "0") < 10 {
            return "leading zeros are not allowed in numbers"
        }
        while i < text.count, text[i] &- UInt8(ascii: "0") < 10 { i += 1 }
        if i < text.count, text[i] == UInt8(ascii: ".") {
            i += 1
            guard i < text.count, text[i] &- UInt8(ascii: "0") < 10 else {
                return "expected a digit after the decimal point"
            }
        }
        return "expected a digit in the exponent"
    }

    /// The BSON value of a scanned number; nil when a double would overflow.
    static func value(of n: ScannedNumber, text: UnsafeBufferPointer<UInt8>) -> BSON? {
        if n.isInteger && !n.truncated && n.exponent == 0 {
            if n.negative {
                if n.mantissa <= UInt64(Int32.max) + 1 { return .int32(Int32(truncatingIfNeeded: 0 &- n.mantissa)) }
                if n.mantissa <= UInt64(Int64.max) + 1 { return .int64(Int64(bitPattern: 0 &- n.mantissa)) }
            } else {
                if n.mantissa <= UInt64(Int32.max) { return .int32(Int32(n.mantissa)) }
                if n.mantissa <= UInt64(Int64.max) { return .int64(Int64(n.mantissa)) }
            }
        }
        guard let d = double(of: n, text: text), d.isFinite else { return nil }
        return .double(d)
    }

    /// Exact when the digits and the power of ten are both exact doubles (one correctly rounded operation);
    /// otherwise the C library's correctly rounded conversion of the text.
    static func double(of n: ScannedNumber, text: UnsafeBufferPointer<UInt8>) -> Double? {
        if !n.truncated && n.mantissa < 1 << 53 && n.exponent >= -22 && n.exponent <= 22 {
            var d = Double(n.mantissa)
            d = n.exponent < 0 ? d / powersOfTen[-n.exponent] : d * powersOfTen[n.exponent]
            return n.negative ? -d : d
        }
        return Double(String(decoding: text, as: UTF8.self))
    }
}
