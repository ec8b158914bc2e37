import DocumentStore

extension APIError {
    /// What a handler threw, as the answer a client gets: an `APIError` as it is; a failure of the storage under
    /// the store as the server failure it is (507 when the disk is full, 503 otherwise), whatever the request;
    /// anything else as a 500. Storage failures are answered without their detail, which names files of the data
    /// directory.
    static func answering(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError: return error
        case let error as StoreError: return storageFailure(code: error.code) ?? internalError("\(error)")
        case let error as BulkWriteError:
            return error.writeErrors.lazy.compactMap { storageFailure(code: $0.code) }.first
                ?? internalError("\(error)")
        default: return internalError("\(error)")
        }
    }

    /// The answer to a store error of `code` when it is a storage failure, else nil.
    static func storageFailure(code: StoreError.Code) -> APIError? {
        guard code.isStorageFailure else { return nil }
        if code == .outOfDiskSpace {
            return APIError(
                status: 507, code: "OutOfDiskSpace",
                message: "the server's disk is full: nothing was saved; retry once space is freed")
        }
        return APIError(
            status: 503, code: "StorageUnavailable",
            message: "the server cannot read or write its data: nothing was saved; retry later")
    }
}
