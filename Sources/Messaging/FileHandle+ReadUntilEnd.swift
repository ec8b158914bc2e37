import Foundation

#if canImport(Glibc)
    import Glibc
    private let readBytes = Glibc.read
#elseif canImport(Darwin)
    import Darwin
    private let readBytes = Darwin.read
#endif

extension FileHandle {
    /// Everything up to the end of the file or pipe. Foundation's `readDataToEndOfFile()` stops the process when a
    /// signal interrupts its read (`EINTR`), which a child process ending elsewhere in the same process can cause;
    /// this reads on after an interruption.
    package func readUntilEnd() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { readBytes(fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }
}
