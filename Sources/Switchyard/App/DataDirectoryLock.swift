import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps one process at a time writing to an app's data directory. The store caches its catalog and change-log
/// position in memory, so two processes writing the same SQLite file would hand out the same change sequence;
/// whoever opens the app to write (`run`, `call`, `fire`) holds this lock until it is released or the process
/// ends (the kernel drops the lock with the process, so a crash never leaves it stale).
///
/// On Linux the lock is an open file description lock: `isHeld` can then ask the kernel whether it is taken
/// without taking anything (`F_OFD_GETLK`), where a probe with a lock of its own would refuse a writer that
/// tried at that instant. Elsewhere it is a `flock`, probed with a shared lock.
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
        guard lockExclusively(descriptor) else {
            let busy = [EWOULDBLOCK, EAGAIN, EACCES].contains(errno)
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
    /// the app is running there). Creates nothing and, on Linux, takes nothing either.
    package static func isHeld(_ directory: String) -> Bool {
        let descriptor = open("\(directory)/\(fileName)", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        #if os(Linux)
            var query = wholeFile(Int16(F_WRLCK))
            return fcntl(descriptor, openFileDescriptionGetLock, &query) == 0 && query.l_type != Int16(F_UNLCK)
        #else
            guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
            flock(descriptor, LOCK_UN)
            return false
        #endif
    }

    private static func lockExclusively(_ descriptor: Int32) -> Bool {
        #if os(Linux)
            var lock = wholeFile(Int16(F_WRLCK))
            return fcntl(descriptor, openFileDescriptionSetLock, &lock) == 0
        #else
            return flock(descriptor, LOCK_EX | LOCK_NB) == 0
        #endif
    }

    #if os(Linux)
        /// `<linux/fcntl.h>`'s `F_OFD_GETLK` and `F_OFD_SETLK`, the same on every architecture; Glibc's module
        /// leaves them out, since they are defined only under `_GNU_SOURCE`.
        private static let openFileDescriptionGetLock: Int32 = 36
        private static let openFileDescriptionSetLock: Int32 = 37

        /// A lock record of `type` over the whole file, with the zero process id open file description locks need.
        private static func wholeFile(_ type: Int16) -> flock {
            var record = flock()
            record.l_type = type
            record.l_whence = Int16(SEEK_SET)
            return record
        }
    #endif

    deinit {
        close(descriptor)
    }
}
