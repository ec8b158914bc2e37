import Foundation

#if canImport(Glibc)
    import Glibc
    private let readBytes = Glibc.read
#elseif canImport(Darwin)
    import Darwin
    private let readBytes = Darwin.read
#endif

/// Reads that go on after a signal interrupts them. Foundation's `readDataToEndOfFile()` and `availableData` stop
/// the process when a read fails with `EINTR`, which a child process ending elsewhere in the same process can cause.
extension FileHandle {
    /// Everything up to the end of the file or pipe.
    package func readUntilEnd() -> Data {
        var data = Data()
        while case let chunk = readAvailable(), !chunk.isEmpty {
            data.append(chunk)
        }
        return data
    }

    /// What one read returns: up to 64 KiB once some bytes are there, empty at the end of the file or pipe (or on
    /// an error other than an interruption).
    package func readAvailable() -> Data {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { readBytes(fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 { return Data(buffer[0..<count]) }
            if count < 0 && errno == EINTR { continue }
            return Data()
        }
    }
}
