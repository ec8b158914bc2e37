import CZlib

/// zlib, OP_COMPRESSED's compressor 2.
enum Zlib {
    static func compress(_ input: [UInt8]) -> [UInt8]? {
        var length = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                CZlib.compress(target.baseAddress, &length, source.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK else { return nil }
        output.removeSubrange(Int(length)...)
        return output
    }

    /// Inflates to exactly `size` bytes (the size the message announced, bounded by the caller).
    static func decompress(_ input: [UInt8], size: Int) throws(WireError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: size)
        var length = uLongf(size)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                uncompress(target.baseAddress, &length, source.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK, Int(length) == size else {
            throw .invalidMessage("the compressed message does not inflate to its announced \(size) bytes")
        }
        return output
    }
}
