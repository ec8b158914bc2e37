/// Reads little-endian fields from a message's bytes, failing (never trapping) where the bytes run out.
struct WireReader {
    let bytes: [UInt8]
    var offset: Int
    let end: Int

    init(_ bytes: [UInt8], from offset: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = end ?? bytes.count
    }

    var remaining: Int { end - offset }

    mutating func int32(_ what: String) throws(WireError) -> Int32 {
        guard remaining >= 4 else { throw .invalidMessage("the message ends inside its \(what)") }
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[offset + i]) << (8 * UInt32(i)) }
        offset += 4
        return Int32(bitPattern: value)
    }

    mutating func uint8(_ what: String) throws(WireError) -> UInt8 {
        guard remaining >= 1 else { throw .invalidMessage("the message ends inside its \(what)") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func cString(_ what: String) throws(WireError) -> String {
        guard let nul = bytes[offset..<end].firstIndex(of: 0) else {
            throw .invalidMessage("the message's \(what) has no terminating NUL")
        }
        defer { offset = nul + 1 }
        guard let text = String(validating: bytes[offset..<nul], as: UTF8.self) else {
            throw .invalidMessage("the message's \(what) is not UTF-8")
        }
        return text
    }

    /// One BSON document: its length prefix must fit in what is left.
    mutating func document(_ what: String) throws(WireError) -> [UInt8] {
        guard remaining >= 5 else { throw .invalidMessage("the message ends inside its \(what)") }
        var length = 0
        for i in 0..<4 { length |= Int(bytes[offset + i]) << (8 * i) }
        guard length >= 5, length <= remaining else {
            throw .invalidMessage("the \(what)'s length \(length) does not fit the \(remaining) bytes left")
        }
        guard length <= WireLimits.maxBsonObjectSize + 16 * 1024 else {
            throw WireError(code: 10334, message: "the \(what) is \(length) bytes, over the 16 MB limit")
        }
        defer { offset += length }
        return Array(bytes[offset..<offset + length])
    }

    mutating func rest() -> [UInt8] {
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}

/// Appends little-endian fields to a message being written.
struct WireWriter {
    var bytes: [UInt8] = []

    mutating func int32(_ value: Int32) {
        let bits = UInt32(bitPattern: value)
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt32(i)))) }
    }

    mutating func int64(_ value: Int64) {
        let bits = UInt64(bitPattern: value)
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
    }

    /// Writes the total length into the first four bytes, once everything is appended.
    mutating func patchLength() {
        let bits = UInt32(bytes.count)
        for i in 0..<4 { bytes[i] = UInt8(truncatingIfNeeded: bits >> (8 * UInt32(i))) }
    }
}
