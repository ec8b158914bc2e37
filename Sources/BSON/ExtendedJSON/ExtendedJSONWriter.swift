/// Prints BSON values as compact Extended JSON v2 into a byte buffer.
struct ExtendedJSONWriter {
    let mode: ExtendedJSON.Mode
    var output: [UInt8]

    init(mode: ExtendedJSON.Mode, output: [UInt8] = []) {
        self.mode = mode
        self.output = output
    }

    mutating func write(_ document: BSONDocument) {
        output.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in zip(document.keys, document.values) {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            writeString(key)
            output.append(UInt8(ascii: ":"))
            write(value)
        }
        output.append(UInt8(ascii: "}"))
    }

    mutating func write(_ value: BSON) {
        switch value {
        case .double(let d):
            if mode == .relaxed && d.isFinite {
                writeDouble(d)
            } else {
                output.append(contentsOf: #"{"$numberDouble":""#.utf8)
                writeDouble(d)
                output.append(contentsOf: #""}"#.utf8)
            }
        case .string(let s):
            writeString(s)
        case .document(let d):
            write(d)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                write(element)
            }
            output.append(UInt8(ascii: "]"))
        case .binary(let b):
            output.append(contentsOf: #"{"$binary":{"base64":""#.utf8)
            Base64.encode(b.data, into: &output)
            output.append(contentsOf: #"","subType":""#.utf8)
            writeHexByte(b.subtype)
            output.append(contentsOf: #""}}"#.utf8)
        case .undefined:
            output.append(contentsOf: #"{"$undefined":true}"#.utf8)
        case .objectId(let oid):
            output.append(contentsOf: #"{"$oid":""#.utf8)
            writeHex(oid)
            output.append(contentsOf: #""}"#.utf8)
        case .bool(let b):
            output.append(contentsOf: (b ? "true" : "false").utf8)
        case .datetime(let date):
            writeDate(date)
        case .null:
            output.append(contentsOf: "null".utf8)
        case .regex(let r):
            output.append(contentsOf: #"{"$regularExpression":{"pattern":"#.utf8)
            writeString(r.pattern)
            output.append(contentsOf: #","options":"#.utf8)
            writeString(r.options)
            output.append(contentsOf: "}}".utf8)
        case .dbPointer(let p):
            output.append(contentsOf: #"{"$dbPointer":{"$ref":"#.utf8)
            writeString(p.namespace)
            output.append(contentsOf: #","$id":{"$oid":""#.utf8)
            writeHex(p.id)
            output.append(contentsOf: #""}}}"#.utf8)
        case .javascript(let code):
            output.append(contentsOf: #"{"$code":"#.utf8)
            writeString(code)
            output.append(UInt8(ascii: "}"))
        case .symbol(let s):
            output.append(contentsOf: #"{"$symbol":"#.utf8)
            writeString(s)
            output.append(UInt8(ascii: "}"))
        case .javascriptWithScope(let c):
            output.append(contentsOf: #"{"$code":"#.utf8)
            writeString(c.code)
            output.append(contentsOf: #","$scope":"#.utf8)
            write(c.scope)
            output.append(UInt8(ascii: "}"))
        case .int32(let i):
            if mode == .relaxed {
                writeInteger(Int64(i))
            } else {
                output.append(contentsOf: #"{"$numberInt":""#.utf8)
                writeInteger(Int64(i))
                output.append(contentsOf: #""}"#.utf8)
            }
        case .timestamp(let t):
            output.append(contentsOf: #"{"$timestamp":{"t":"#.utf8)
            writeInteger(Int64(t.time))
            output.append(contentsOf: #","i":"#.utf8)
            writeInteger(Int64(t.increment))
            output.append(contentsOf: "}}".utf8)
        case .int64(let i):
            if mode == .relaxed {
                writeInteger(i)
            } else {
                output.append(contentsOf: #"{"$numberLong":""#.utf8)
                writeInteger(i)
                output.append(contentsOf: #""}"#.utf8)
            }
        case .decimal128(let d):
            output.append(contentsOf: #"{"$numberDecimal":""#.utf8)
            output.append(contentsOf: d.description.utf8)
            output.append(contentsOf: #""}"#.utf8)
        case .minKey:
            output.append(contentsOf: #"{"$minKey":1}"#.utf8)
        case .maxKey:
            output.append(contentsOf: #"{"$maxKey":1}"#.utf8)
        }
    }

    /// Relaxed dates from 1970 to 9999 print as RFC 3339 text; all others (and all canonical dates) as milliseconds.
    private mutating func writeDate(_ date: BSONDate) {
        let ms = date.millisecondsSinceEpoch
        if mode == .relaxed, ms >= 0, ms <= BSONDate.maximumISO8601Milliseconds {
            output.append(contentsOf: #"{"$date":""#.utf8)
            date.appendISO8601(to: &output)
            output.append(contentsOf: #""}"#.utf8)
        } else {
            output.append(contentsOf: #"{"$date":{"$numberLong":""#.utf8)
            writeInteger(ms)
            output.append(contentsOf: #""}}"#.utf8)
        }
    }

    mutating func writeInteger(_ value: Int64) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            output.append(UInt8(magnitude) + UInt8(ascii: "0"))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var i = 20
            while magnitude > 0 {
                i -= 1
                digits[i] = UInt8(magnitude % 10) + UInt8(ascii: "0")
                magnitude /= 10
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[i..<20]))
        }
    }

    /// The shortest text that reads back as the same double, in the specification's style: always a point or an
    /// exponent (`1.0`, `-0.0`, `1.5E+300`, `5.0E-324`), and `Infinity`, `-Infinity`, `NaN` for the rest.
    mutating func writeDouble(_ d: Double) {
        if d.isNaN {
            output.append(contentsOf: "NaN".utf8)
        } else if d.isInfinite {
            output.append(contentsOf: (d < 0 ? "-Infinity" : "Infinity").utf8)
        } else if d == d.rounded(.towardZero), d.magnitude < 1e15 {
            // Whole numbers print exactly as integers; Swift would print the same digits.
            if d.sign == .minus { output.append(UInt8(ascii: "-")) }
            writeInteger(Int64(d.magnitude))
            output.append(contentsOf: ".0".utf8)
        } else {
            var text = d.description
            text.withUTF8 { bytes in
                guard let e = bytes.firstIndex(of: UInt8(ascii: "e")) else {
                    output.append(contentsOf: bytes)
                    return
                }
                let mantissa = UnsafeBufferPointer(rebasing: bytes[..<e])
                output.append(contentsOf: mantissa)
                if !mantissa.contains(UInt8(ascii: ".")) { output.append(contentsOf: ".0".utf8) }
                output.append(UInt8(ascii: "E"))
                var i = e + 1
                if bytes[i] == UInt8(ascii: "-") {
                    output.append(UInt8(ascii: "-"))
                    i += 1
                } else {
                    output.append(UInt8(ascii: "+"))
                    if bytes[i] == UInt8(ascii: "+") { i += 1 }
                }
                while i < bytes.count - 1 && bytes[i] == UInt8(ascii: "0") { i += 1 }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i...]))
            }
        }
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes, the rest as UTF-8.
    mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            output.append(UInt8(ascii: "\""))
            var runStart = 0
            for i in 0..<bytes.count {
                let byte = bytes[i]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < i { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                runStart = i + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case 0x09: output.append(UInt8(ascii: "t"))
                default:
                    output.append(contentsOf: "u00".utf8)
                    writeHexByte(byte)
                }
            }
            if runStart < bytes.count {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            }
            output.append(UInt8(ascii: "\""))
        }
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    private mutating func writeHexByte(_ byte: UInt8) {
        Self.hexDigits.withUTF8Buffer { digits in
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0xF)])
        }
    }

    private mutating func writeHex(_ oid: ObjectId) {
        withUnsafeBytes(of: oid.bytes) { raw in
            for byte in raw { writeHexByte(byte) }
        }
    }
}
