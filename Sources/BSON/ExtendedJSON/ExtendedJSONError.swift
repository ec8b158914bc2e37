/// Why Extended JSON text could not be read, and where.
///
/// `line` and `column` are 1-based; the column counts Unicode scalars (not bytes) from the start of the line, as
/// editors do. `offset` is the 0-based byte offset into the input.
public struct ExtendedJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var offset: Int
    public var message: String

    public init(line: Int, column: Int, offset: Int, message: String) {
        self.line = line
        self.column = column
        self.offset = offset
        self.message = message
    }

    /// `LINE:COLUMN: message`; prefix a file name for a compiler-style diagnostic.
    public var description: String { "\(line):\(column): \(message)" }

    /// Locates a byte offset in the input: lines end at `\n`, columns count the bytes that start a UTF-8 scalar.
    init(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int, _ message: String) {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var column = 1
        for i in 0..<end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        self.init(line: line, column: column, offset: end, message: message)
    }
}
