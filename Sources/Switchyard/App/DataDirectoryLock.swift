import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps one process at a time writing to an app's data directory. The store caches its catalog and change-log
/// position in memory, so two processes writing the same SQLite file would hand out the same change sequence;
/// whoever opens the app to write (`run`, `call`, `fire`) holds this lock until it is released or the process
/// ends (the kernel drops `flock` locks with the process, so a crash never leaves it stale).
package final class DataDirectoryLock: Sendable {
    package static let fileName = "lock"

    private let descriptor: Int32

    /// Why the lock could not be taken.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes the lock on `directory` (creating it when missing) without waiting.
    /// - Throws: when another process holds it, or the directory cannot be created.
    package static func acquire(_ directory: String) throws(Failure) -> DataDirectoryLock {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "\(directory): cannot be created (\(error.localizedDescription))")
        }
        let path = "\(directory)/\(fileName)"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Failure(description: "\(path): cannot be opened (\(String(cString: strerror(errno))))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(
                description: busy
                    ? "\(directory) is in use by another switchyard process (is the app running?); stop it first"
                    : "\(path): cannot be locked (\(reason))")
        }
        return DataDirectoryLock(descriptor: descriptor)
    }

    /// Whether a process holds the lock on `directory` now (a command that only reads asks, to know whether
    /// the app is running there). Creates nothing, and on Linux takes nothing either: it reads the kernel's lock
    /// table, since probing with a lock of its own would refuse a writer that tried at that instant.
    package static func isHeld(_ directory: String) -> Bool {
        let path = "\(directory)/\(fileName)"
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        #if os(Linux)
            if let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) {
                // `1: FLOCK  ADVISORY  WRITE 1234 08:01:<inode> 0 EOF`
                let inode = ":\(status.st_ino)"
                return table.split(separator: "\n").contains { line in
                    let fields = line.split(separator: " ")
                    return fields.count > 5 && fields[1] == "FLOCK" && fields[5].hasSuffix(inode)
                }
            }
        #endif
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(descriptor, LOCK_UN)
        return false
    }

    deinit {
        close(descriptor)
    }
}
