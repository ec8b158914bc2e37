import Foundation

/// Standard output and error, with a buffered byte writer for bulk output.
enum Output {
    static func print(_ text: String) {
        write(Array((text + "\n").utf8), to: .standardOutput)
    }

    static func error(_ text: String) {
        write(Array((text + "\n").utf8), to: .standardError)
    }

    static func write(_ bytes: [UInt8], to handle: FileHandle) {
        guard !bytes.isEmpty else { return }
        handle.write(Data(bytes))
    }
}
