import Foundation
import Switchyard

/// The data directory's lock, taken by a command that writes there, and whether that command created the
/// directory: a command that fails before it did its work (a taken port, an import the store refuses) removes
/// what it created, so a failed first try leaves nothing behind.
final class DataDirectoryClaim: Sendable {
    let directory: String
    let lock: DataDirectoryLock
    let created: Bool

    private init(directory: String, lock: DataDirectoryLock, created: Bool) {
        self.directory = directory
        self.lock = lock
        self.created = created
    }

    /// Takes the lock on `directory`, creating the directory when missing.
    /// - Throws: status 1 when another process holds it or it cannot be created.
    static func take(_ directory: String) throws(CommandFailure) -> DataDirectoryClaim {
        let existed = FileManager.default.fileExists(atPath: directory)
        do {
            return DataDirectoryClaim(
                directory: directory, lock: try DataDirectoryLock.acquire(directory), created: !existed)
        } catch {
            throw CommandFailure(error.description, status: 1)
        }
    }

    /// Removes the directory if this command created it; called once the store in it is closed.
    func discard() {
        guard created else { return }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
