import Foundation

extension StoreIdentityFile {
    /// What to tell the operator about recovering, after what is missing.
    static let recovery =
        "Stop here and restore a backup ('switchyard data backup' makes one; see README, Backups), or start once with 'switchyard serve --accept-data-loss' to go on with what is left."

    /// Before SQLite opens (and would create) `store.sqlite`: refuses a data directory whose identity file says it
    /// held a store when the database file is missing or empty. Accepting the loss, the old write-ahead log and its
    /// index are moved aside (`….damaged`), since SQLite would replay them into the new, empty file.
    static func checkDatabaseFile(in directory: String, acceptingDataLoss: Bool) throws(StoreError) {
        guard let recorded = try read(directory: directory) else { return }
        let database = directory + "/store.sqlite"
        let size = (try? FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) ?? nil
        let state: String
        switch size {
        case nil: state = "is missing"
        case 0?: state = "is empty"
        default: return
        }
        if acceptingDataLoss {
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: database + suffix) {
                try? FileManager.default.removeItem(atPath: database + suffix + ".damaged")
                try? FileManager.default.moveItem(atPath: database + suffix, toPath: database + suffix + ".damaged")
            }
            return
        }
        throw .dataCorruptionDetected(
            "\(database) \(state), but \(directory)/\(fileName) says this data directory held a store with \(recorded.committedThrough) committed changes. \(recovery)"
        )
    }

    /// Once the store is open: refuses a database that is not the one the identity file names (replaced, or its
    /// write-ahead log gone with the identity itself) or that ends before the last change recorded as committed.
    /// Then assigns an identity to a store without one and starts recording positions.
    static func recording(
        directory: String, core: StoreCore, acceptingDataLoss: Bool
    ) throws(StoreError) -> StoreIdentityFile {
        let recorded = try read(directory: directory)
        let stored = try core.engine.metadata(identityName)
        if let recorded, !acceptingDataLoss {
            let wal = "\(directory)/store.sqlite-wal"
            if stored != recorded.identity {
                throw .dataCorruptionDetected(
                    "\(directory)/store.sqlite is not the store this data directory held (\(recorded.committedThrough) committed changes): its write-ahead log \(wal) is missing or damaged, or the database file was replaced. \(recovery)"
                )
            }
            if core.lastSequence < recorded.committedThrough {
                throw .dataCorruptionDetected(
                    "\(directory)/store.sqlite ends at change \(core.lastSequence), but \(recorded.committedThrough) changes were committed: its write-ahead log \(wal) is truncated or damaged. \(recovery)"
                )
            }
        }
        let identity: Int64
        if let stored {
            identity = stored
        } else {
            identity = Int64.random(in: 1...Int64.max)
            try core.engine.beginTransaction()
            do {
                try core.engine.setMetadata(identityName, identity)
            } catch {
                core.engine.rollbackTransaction()
                throw error
            }
            try core.engine.commitTransaction()
        }
        return try StoreIdentityFile(directory: directory, identity: identity, committedThrough: core.lastSequence)
    }

    /// The identity's name in the store's `metadata` table.
    static let identityName = "storeIdentity"
}
