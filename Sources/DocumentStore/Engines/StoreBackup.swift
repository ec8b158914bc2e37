import Foundation

/// A consistent copy of a SQLite store made while it runs, with SQLite's online backup: `store.sqlite` alone
/// holds only what the last checkpoint copied into it (the recent commits are in its write-ahead log), so
/// copying the file is no backup. The copy gets its own `store.identity`, so that a data directory restored
/// from it starts without a refusal.
package enum StoreBackup {
    /// What a backup holds.
    package struct Summary: Sendable {
        /// The last change-log position in the copy.
        package var committedThrough: Int64
        /// The copy's database file.
        package var file: String
    }

    /// Copies the store in `directory` into `destination` (created when missing), which must not hold a store.
    package static func copy(storeIn directory: String, to destination: String) throws(StoreError) -> Summary {
        let source = directory + "/store.sqlite"
        guard FileManager.default.fileExists(atPath: source) else {
            throw .namespaceNotFound("no store in \(directory) (\(source) does not exist)")
        }
        let target = destination + "/store.sqlite"
        guard !FileManager.default.fileExists(atPath: target) else {
            throw .badValue("\(target) exists: back up into an empty or new directory")
        }
        do {
            try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        } catch {
            throw .storageFailure("cannot create \(destination): \(error.localizedDescription)")
        }
        let reading = try SQLiteConnection(path: source, create: false)
        defer { reading.close() }
        reading.setBusyTimeout(milliseconds: 5_000)
        let writing = try SQLiteConnection(path: target)
        defer { writing.close() }
        try reading.backup(to: writing)
        let identity = Int64(try writing.integer("SELECT value FROM metadata WHERE name = 'storeIdentity'"))
        let position = Int64(
            try writing.integer(
                "SELECT max(coalesce((SELECT max(seq) FROM changes), 0), coalesce((SELECT value FROM metadata WHERE name = 'prunedThrough'), 0))"
            ))
        if identity != 0 {
            try StoreIdentityFile.save(
                StoreIdentityFile.Contents(identity: identity, committedThrough: position),
                to: destination + "/" + StoreIdentityFile.fileName)
        }
        return Summary(committedThrough: position, file: target)
    }
}
