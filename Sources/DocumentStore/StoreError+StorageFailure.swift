extension StoreError {
    /// Whether a store error of `code` is a failure of the storage under the store (`isStorageFailure`).
    package static func isStorageFailure(code: Code) -> Bool {
        code.isStorageFailure
    }

    /// The storage failure behind `error` (a store error, or a bulk write's first storage write error), told
    /// without its detail: a full disk's message already names no file, other failures' name files of the data
    /// directory, so they are told by what they are. Nil when `error` is no storage failure.
    package static func storageFailure(causing error: any Error) -> StoreError? {
        let code: Code
        switch error {
        case let error as StoreError where error.isStorageFailure: code = error.code
        case let error as BulkWriteError:
            guard let failed = error.writeErrors.first(where: { isStorageFailure(code: $0.code) }) else { return nil }
            code = failed.code
        default: return nil
        }
        if code == .outOfDiskSpace {
            return outOfDiskSpace(
                "the disk holding the data directory is full: the write was not saved (free space and retry)")
        }
        return location(code, "the store's files could not be read or written")
    }
}
