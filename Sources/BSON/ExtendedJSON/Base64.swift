/// Standard base64 (RFC 4648, `+` `/`, `=` padding), as Extended JSON's `$binary` uses it.
enum Base64 {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// Sextet value of each byte, 0xFF for bytes outside the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        alphabet.withUTF8Buffer { letters in
            for (value, letter) in letters.enumerated() { table[Int(letter)] = UInt8(value) }
        }
        return table
    }()

    static func encode(_ data: [UInt8], into output: inout [UInt8]) {
        alphabet.withUTF8Buffer { letters in
            var i = 0
            let n = data.count
            while i + 3 <= n {
                let v = UInt32(data[i]) << 16 | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2])
                output.append(letters[Int(v >> 18)])
                output.append(letters[Int(v >> 12 & 0x3F)])
                output.append(letters[Int(v >> 6 & 0x3F)])
                output.append(letters[Int(v & 0x3F)])
                i += 3
            }
            if n - i == 1 {
                let v = UInt32(data[i]) << 16
                output.append(letters[Int(v >> 18)])
                output.append(letters[Int(v >> 12 & 0x3F)])
                output.append(contentsOf: "==".utf8)
            } else if n - i == 2 {
                let v = UInt32(data[i]) << 16 | UInt32(data[i + 1]) << 8
                output.append(letters[Int(v >> 18)])
                output.append(letters[Int(v >> 12 & 0x3F)])
                output.append(letters[Int(v >> 6 & 0x3F)])
                output.append(UInt8(ascii: "="))
            }
        }
    }

    /// Decodes padded base64; nil for a length that is not a multiple of four, a byte outside the alphabet,
    /// misplaced padding, or non-zero bits left over in the last sextet.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let bytes = Array(text)
        guard bytes.count % 4 == 0 else { return nil }
        var padding = 0
        if bytes.last == UInt8(ascii: "=") { padding += 1 }
        if bytes.count >= 2, bytes[bytes.count - 2] == UInt8(ascii: "=") { padding += 1 }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count / 4 * 3)
        var i = 0
        let table = decodeTable
        while i < bytes.count {
            let last = i + 4 == bytes.count
            var v: UInt32 = 0
            for j in 0..<4 {
                let byte = bytes[i + j]
                if last && j >= 4 - padding {
                    v <<= 6
                    continue
                }
                let sextet = table[Int(byte)]
                guard sextet != 0xFF else { return nil }
                v = v << 6 | UInt32(sextet)
            }
            output.append(UInt8(v >> 16))
            if !(last && padding == 2) { output.append(UInt8(v >> 8 & 0xFF)) } else if v & 0xFFFF != 0 { return nil }
            if !(last && padding >= 1) { output.append(UInt8(v & 0xFF)) } else if v & 0xFF != 0 { return nil }
            i += 4
        }
        return output
    }
}
