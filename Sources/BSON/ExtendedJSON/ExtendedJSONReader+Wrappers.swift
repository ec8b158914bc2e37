extension ExtendedJSONReader {
    /// The BSON value of a type wrapper object, nil when the object is an ordinary document (no wrapper key, a
    /// DBRef, the `$regex` query operator, a lone `$type`). A wrapper key with missing or extra keys, or values of the
    /// wrong type, is an error pointing at the object's `{`.
    func interpretWrapper(_ frame: Frame) throws(ExtendedJSONError) -> BSON? {
        let document = frame.document
        try checkDBRef(frame)
        guard let wrapper = document.keys.first(where: { Self.wrapperKeys.contains($0) }) else { return nil }
        let value = document[wrapper]!
        func fail(_ message: String) -> ExtendedJSONError { error(message, at: frame.start) }
        func expectKeys(_ required: [String], optional: [String] = []) throws(ExtendedJSONError) {
            for key in document.keys where !required.contains(key) && !optional.contains(key) {
                throw fail("unexpected key '\(key)' beside '\(wrapper)'")
            }
            for key in required where !document.contains(key) { throw fail("'\(wrapper)' needs a '\(key)' key") }
        }
        func string(_ value: BSON, _ what: String) throws(ExtendedJSONError) -> String {
            guard case .string(let s) = value else { throw fail("\(what) must be a string") }
            return s
        }

        switch wrapper {
        case "$oid":
            try expectKeys(["$oid"])
            guard let oid = Self.objectId(hex: try string(value, "$oid")) else {
                throw fail("$oid must be 24 hexadecimal digits")
            }
            return .objectId(oid)
        case "$symbol":
            try expectKeys(["$symbol"])
            return .symbol(try string(value, "$symbol"))
        case "$numberInt":
            try expectKeys(["$numberInt"])
            guard let i = Self.int64(try string(value, "$numberInt").utf8), let i32 = Int32(exactly: i) else {
                throw fail("$numberInt must be a 32-bit integer as a string, like \"42\"")
            }
            return .int32(i32)
        case "$numberLong":
            try expectKeys(["$numberLong"])
            guard let i = Self.int64(try string(value, "$numberLong").utf8) else {
                throw fail("$numberLong must be a 64-bit integer as a string, like \"42\"")
            }
            return .int64(i)
        case "$numberDouble":
            try expectKeys(["$numberDouble"])
            guard let d = Self.double(try string(value, "$numberDouble")) else {
                throw fail("$numberDouble must be a decimal number, \"Infinity\", \"-Infinity\" or \"NaN\" as a string")
            }
            return .double(d)
        case "$numberDecimal":
            try expectKeys(["$numberDecimal"])
            guard let d = Decimal128(try string(value, "$numberDecimal")) else {
                throw fail("$numberDecimal must be a decimal128 number as a string that needs no rounding")
            }
            return .decimal128(d)
        case "$binary":
            return try binary(document, value, fail: fail, expectKeys: expectKeys)
        case "$code", "$scope":
            if document.contains("$scope") {
                try expectKeys(["$code", "$scope"])
                guard case .document(let scope) = document["$scope"]! else { throw fail("$scope must be a document") }
                return .javascriptWithScope(
                    BSONCodeWithScope(code: try string(document["$code"]!, "$code"), scope: scope))
            }
            try expectKeys(["$code"])
            return .javascript(try string(value, "$code"))
        case "$timestamp":
            try expectKeys(["$timestamp"])
            guard case .document(let parts) = value, frame.isPlain(at: document.position(of: "$timestamp")!),
                parts.count == 2, let t = Self.uint32(parts["t"]), let i = Self.uint32(parts["i"])
            else {
                throw fail("$timestamp must be {\"t\": <seconds>, \"i\": <increment>} with unsigned 32-bit integers")
            }
            return .timestamp(BSONTimestamp(time: t, increment: i))
        case "$regularExpression":
            try expectKeys(["$regularExpression"])
            guard case .document(let parts) = value, parts.count == 2, case .string(let pattern)? = parts["pattern"],
                case .string(let options)? = parts["options"]
            else { throw fail("$regularExpression must be {\"pattern\": <string>, \"options\": <string>}") }
            return .regex(try regex(pattern, options, fail: fail))
        case "$regex":
            // `{"$regex": {...}}` is the query operator, not a legacy regular expression: leave it alone.
            guard case .string(let pattern) = value else { return nil }
            try expectKeys(["$regex"], optional: ["$options"])
            let options = try document["$options"].map { v throws(ExtendedJSONError) in try string(v, "$options") }
            return .regex(try regex(pattern, options ?? "", fail: fail))
        case "$date":
            try expectKeys(["$date"])
            switch value {
            case .string(let text):
                guard let date = BSONDate(iso8601: text.utf8) else {
                    throw fail("$date must be an RFC 3339 date-time, like \"2024-03-15T09:41:07.250Z\"")
                }
                return .datetime(date)
            case .int64(let ms) where !frame.isPlain(at: 0):
                return .datetime(BSONDate(millisecondsSinceEpoch: ms))
            default:
                // A bare number of milliseconds is the legacy shell's form, which Extended JSON v2 does not
                // accept as a $date.
                throw fail("$date must be a date-time string or {\"$numberLong\": <string>} of milliseconds")
            }
        case "$minKey", "$maxKey":
            try expectKeys([wrapper])
            guard case .int32(1) = value, frame.isPlain(at: 0) else { throw fail("\(wrapper) must be 1") }
            return wrapper == "$minKey" ? .minKey : .maxKey
        case "$undefined":
            try expectKeys(["$undefined"])
            guard case .bool(true) = value else { throw fail("$undefined must be true") }
            return .undefined
        case "$dbPointer":
            try expectKeys(["$dbPointer"])
            guard case .document(let parts) = value, parts.count == 2, case .string(let namespace)? = parts["$ref"],
                case .objectId(let id)? = parts["$id"]
            else { throw fail("$dbPointer must be {\"$ref\": <string>, \"$id\": {\"$oid\": <hex>}}") }
            return .dbPointer(BSONDBPointer(namespace: namespace, id: id))
        case "$uuid":
            try expectKeys(["$uuid"])
            guard let data = Self.uuid(try string(value, "$uuid")) else {
                throw fail("$uuid must be a UUID like \"3f2a6c1e-9b4d-4e7a-8c15-2d6e9f0a7b3c\"")
            }
            return .binary(BSONBinary(subtype: BSONBinary.uuidSubtype, data: data))
        default:
            return nil
        }
    }

    /// A DBRef (`{"$ref": <collection>, "$id": …, "$db"?: <database>}`) stays a document, but names that are
    /// not strings are errors, as the Extended JSON specification requires.
    private func checkDBRef(_ frame: Frame) throws(ExtendedJSONError) {
        let document = frame.document
        guard let reference = document["$ref"] else { return }
        guard case .string = reference else { throw error("a DBRef's $ref must be a string", at: frame.start) }
        if let database = document["$db"], database.stringValue == nil {
            throw error("a DBRef's $db must be a string", at: frame.start)
        }
    }

    /// Keys that make an object a type wrapper (`$type` and `$options` only ever accompany one of these).
    static let wrapperKeys: Set<String> = [
        "$oid", "$symbol", "$numberInt", "$numberLong", "$numberDouble", "$numberDecimal", "$binary", "$code", "$scope",
        "$timestamp", "$regularExpression", "$regex", "$date", "$minKey", "$maxKey", "$undefined", "$dbPointer",
        "$uuid",
    ]

    private func binary(
        _ document: BSONDocument, _ value: BSON, fail: (String) -> ExtendedJSONError,
        expectKeys: ([String], [String]) throws(ExtendedJSONError) -> Void
    ) throws(ExtendedJSONError) -> BSON {
        let base64: String
        let subtype: BSON?
        switch value {
        case .string(let text):
            // Legacy form: {"$binary": "<base64>", "$type": "<hex>"}.
            try expectKeys(["$binary", "$type"], [])
            base64 = text
            subtype = document["$type"]
        case .document(let parts):
            try expectKeys(["$binary"], [])
            guard parts.count == 2, case .string(let text)? = parts["base64"], parts.contains("subType") else {
                throw fail("$binary must be {\"base64\": <string>, \"subType\": <hex string>}")
            }
            base64 = text
            subtype = parts["subType"]
        default:
            throw fail("$binary must be {\"base64\": <string>, \"subType\": <hex string>}")
        }
        guard case .string(let hex)? = subtype, let type = Self.subtype(hex.utf8) else {
            throw fail("binary subType must be one or two hexadecimal digits as a string, like \"04\"")
        }
        guard let data = Base64.decode(base64.utf8) else { throw fail("$binary payload is not valid base64") }
        return .binary(BSONBinary(subtype: type, data: data))
    }

    private func regex(
        _ pattern: String, _ options: String, fail: (String) -> ExtendedJSONError
    ) throws(ExtendedJSONError) -> BSONRegularExpression {
        guard !pattern.utf8.contains(0), !options.utf8.contains(0) else {
            throw fail("regular expression contains U+0000, which BSON cannot store")
        }
        return BSONRegularExpression(pattern: pattern, options: options)
    }

    // MARK: Wrapper contents

    /// `-?[0-9]+` that fits an Int64.
    static func int64(_ text: some Collection<UInt8>) -> Int64? {
        var iterator = text.makeIterator()
        guard var c = iterator.next() else { return nil }
        let negative = c == UInt8(ascii: "-")
        if negative {
            guard let next = iterator.next() else { return nil }
            c = next
        }
        var magnitude: UInt64 = 0
        while true {
            let d = c &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(d))
            guard !o1, !o2 else { return nil }
            magnitude = sum
            guard let next = iterator.next() else { break }
            c = next
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return Int64(bitPattern: 0 &- magnitude)
        }
        return Int64(exactly: magnitude)
    }

    /// `Infinity`, `-Infinity`, `NaN`, or a decimal number (`1`, `-1.5`, `.5`, `1.0E+308`); nil for anything else,
    /// including numbers too large for a double.
    static func double(_ text: String) -> Double? {
        switch text {
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case "NaN": return .nan
        default: break
        }
        var digits = 0
        var state = 0  // 0 sign, 1 integer, 2 fraction, 3 exponent sign, 4 exponent
        var exponentDigits = 0
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard state == 0 || state == 3 else { return nil }
                state += 1
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if state == 0 { state = 1 }
                if state == 3 { state = 4 }
                if state == 4 { exponentDigits += 1 } else { digits += 1 }
            case UInt8(ascii: "."):
                guard state <= 1 else { return nil }
                state = 2
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard state == 1 || state == 2, digits > 0 else { return nil }
                state = 3
            default:
                return nil
            }
        }
        guard digits > 0, state < 3 || exponentDigits > 0, let d = Double(text), d.isFinite else { return nil }
        return d
    }

    static func uint32(_ value: BSON?) -> UInt32? {
        switch value {
        case .int32(let i)?: UInt32(exactly: i)
        case .int64(let i)?: UInt32(exactly: i)
        default: nil
        }
    }

    static func subtype(_ hex: some Collection<UInt8>) -> UInt8? {
        guard hex.count == 1 || hex.count == 2 else { return nil }
        var value: UInt8 = 0
        for c in hex {
            guard let d = hexValue(c) else { return nil }
            value = value << 4 | d
        }
        return value
    }

    static func objectId(hex: String) -> ObjectId? {
        var hex = hex
        return hex.withUTF8 { objectId(hex: $0) }
    }

    static func objectId(hex: UnsafeBufferPointer<UInt8>) -> ObjectId? {
        guard hex.count == 24 else { return nil }
        var id: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let valid = withUnsafeMutableBytes(of: &id) { out in
            for i in 0..<12 {
                guard let hi = hexValue(hex[2 * i]), let lo = hexValue(hex[2 * i + 1]) else { return false }
                out[i] = hi << 4 | lo
            }
            return true
        }
        return valid ? ObjectId(storage: id) : nil
    }

    /// 32 hexadecimal digits, with or without the hyphens of the 8-4-4-4-12 form.
    static func uuid(_ text: String) -> [UInt8]? {
        var digits = Array(text.utf8)
        if digits.count == 36 {
            guard [8, 13, 18, 23].allSatisfy({ digits[$0] == UInt8(ascii: "-") }) else { return nil }
            digits.removeAll { $0 == UInt8(ascii: "-") }
        }
        guard digits.count == 32 else { return nil }
        var data: [UInt8] = []
        for i in stride(from: 0, to: 32, by: 2) {
            guard let hi = hexValue(digits[i]), let lo = hexValue(digits[i + 1]) else { return nil }
            data.append(hi << 4 | lo)
        }
        return data
    }

    // MARK: Fast path

    /// Reads the wrappers that dominate real data (`$numberInt`, `$numberLong`, `$numberDouble`,
    /// `$numberDecimal`, `$oid`, `$date`, canonical `$binary`) in their usual spelling without building a
    /// document. Anything unusual, including any error, rewinds and returns nil so the general path decides.
    mutating func readCommonWrapper() -> BSON? {
        let start = position
        if let value = commonWrapper() { return value }
        position = start
        return nil
    }

    private mutating func commonWrapper() -> BSON? {
        position += 1
        guard let key = plainString() else { return nil }
        guard key.first == UInt8(ascii: "$"), colon() else { return nil }
        let value: BSON
        if matches(key, "$numberInt") {
            guard let text = plainString(), let i = Self.int64(text), let i32 = Int32(exactly: i) else { return nil }
            value = .int32(i32)
        } else if matches(key, "$numberLong") {
            guard let text = plainString(), let i = Self.int64(text) else { return nil }
            value = .int64(i)
        } else if matches(key, "$oid") {
            guard let text = plainString(), let oid = Self.objectId(hex: text) else { return nil }
            value = .objectId(oid)
        } else if matches(key, "$numberDouble") {
            guard let text = plainString(), let d = Self.double(String(decoding: text, as: UTF8.self)) else {
                return nil
            }
            value = .double(d)
        } else if matches(key, "$date") {
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: "\"") {
                guard let text = plainString(), let date = BSONDate(iso8601: text) else { return nil }
                value = .datetime(date)
            } else if bytes[position] == UInt8(ascii: "{") {
                position += 1
                guard let inner = plainString(), matches(inner, "$numberLong"), colon(), let text = plainString(),
                    let ms = Self.int64(text), close()
                else { return nil }
                value = .datetime(BSONDate(millisecondsSinceEpoch: ms))
            } else {
                return nil
            }
        } else if matches(key, "$binary") {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return nil }
            position += 1
            guard let k1 = plainString(), matches(k1, "base64"), colon(), let base64 = plainString(), comma(),
                let k2 = plainString(), matches(k2, "subType"), colon(), let hex = plainString(),
                let subtype = Self.subtype(hex), close(), let data = Base64.decode(base64)
            else { return nil }
            value = .binary(BSONBinary(subtype: subtype, data: data))
        } else if matches(key, "$numberDecimal") {
            guard let text = plainString(), let d = Decimal128(String(decoding: text, as: UTF8.self)) else {
                return nil
            }
            value = .decimal128(d)
        } else {
            return nil
        }
        guard close() else { return nil }
        return value
    }

    /// A string of printable ASCII without escapes, after optional whitespace; the range of its contents.
    private mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        let start = position + 1
        var i = start
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                position = i + 1
                return UnsafeBufferPointer(rebasing: bytes[start..<i])
            }
            guard c >= 0x20, c < 0x80, c != UInt8(ascii: "\\") else { return nil }
            i += 1
        }
        return nil
    }

    private mutating func punctuation(_ c: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == c else { return false }
        position += 1
        skipWhitespace()
        return true
    }

    private mutating func colon() -> Bool { punctuation(UInt8(ascii: ":")) }
    private mutating func comma() -> Bool { punctuation(UInt8(ascii: ",")) }
    private mutating func close() -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "}") else { return false }
        position += 1
        return true
    }

    private func matches(_ text: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard text.count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { expected in
            for i in 0..<text.count where text[i] != expected[i] { return false }
            return true
        }
    }
}

extension ObjectId {
    /// An id from its twelve bytes, without the array `init(bytes:)` takes.
    init(storage: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) {
        self.bytes = storage
    }
}
