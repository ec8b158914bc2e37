import Foundation

/// A tmpfs of a few megabytes mounted on a fresh directory, so a test can fill a real disk and free it again;
/// unmounted and removed when the value is deinitialised. Mounting needs root: `canMount` says whether this
/// machine lets the tests do it, for a test's `.enabled(if:)`, which reports the test as skipped otherwise.
public final class SmallFilesystem {
    public let path: String
    private var fillerNumber = 0

    public static let canMount: Bool = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")

    public init(megabytes: Int) throws {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-tmpfs-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let status = Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
        guard status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw MountFailed(status: status)
        }
    }

    deinit {
        _ = Self.run("/bin/umount", [path])
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes a file that takes every free byte; returns its path, for `free(_:)`.
    public func fill() -> String {
        fillerNumber += 1
        let filler = "\(path)/filler-\(fillerNumber)"
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let block = [UInt8](repeating: 0, count: 64 * 1024)
        var size = block.count
        // Halves the block when a write no longer fits, down to single bytes, so not a byte stays free.
        while size > 0 {
            if write(descriptor, block, size) < size { size /= 2 }
        }
        close(descriptor)
        return filler
    }

    public func free(_ filler: String) {
        try? FileManager.default.removeItem(atPath: filler)
    }

    public struct MountFailed: Error, CustomStringConvertible {
        public var status: Int32
        public var description: String { "mount -t tmpfs exited with status \(status)" }
    }

    private static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitForExit()
        return process.terminationStatus
    }
}
