import Foundation

/// The data directory's lock, taken by whoever writes there (a command, `switchyard serve`), and whether that
/// writer created the directory: one that fails before it did its work (a taken port, an import the store refuses)
/// removes what it created, so a failed first try leaves nothing behind.
package final class DataDirectoryClaim: Sendable {
    package let directory: String
    package let lock: DataDirectoryLock
    package let created: Bool

    private init(directory: String, lock: DataDirectoryLock, created: Bool) {
        self.directory = directory
        self.lock = lock
        self.created = created
    }

    /// Takes the lock on `directory`, creating the directory when missing.
    /// - Throws: when another process holds it or it cannot be created.
    package static func take(_ directory: String) throws(DataDirectoryLock.Failure) -> DataDirectoryClaim {
        let existed = FileManager.default.fileExists(atPath: directory)
        return DataDirectoryClaim(
            directory: directory, lock: try DataDirectoryLock.acquire(directory), created: !existed)
    }

    /// Removes the directory if this claim created it; called once the store in it is closed.
    package func discard() {
        guard created else { return }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
