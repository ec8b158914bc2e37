import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output and error, with a buffered byte writer for bulk output.
enum Output {
    static func print(_ text: String) {
        write(Array((text + "\n").utf8), to: .standardOutput)
    }

    static func error(_ text: String) {
        write(Array((text + "\n").utf8), to: .standardError)
    }

    /// Writes every byte straight to the handle's file descriptor (`serve` writes a batch of runs per call,
    /// thousands a second: no copy into `Data` first). Output nobody can take (a closed pipe, a full disk) is
    /// dropped rather than stopping the command.
    static func write(_ bytes: [UInt8], to handle: FileHandle) {
        let descriptor = handle.fileDescriptor
        bytes.withUnsafeBytes { buffer in
            guard var next = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = systemWrite(descriptor, next, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                next += written
                remaining -= written
            }
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, bytes, count)
        #else
            Darwin.write(descriptor, bytes, count)
        #endif
    }
}
