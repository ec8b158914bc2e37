import BSON

/// An error from the store, shaped like a MongoDB server error: a numeric code, its name, and a message
/// (`E11000 duplicate key error …`, code 11000, `DuplicateKey`). A struct wrapping a code, so that new
/// codes never break users' `switch`es.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// MongoDB's name for the code, as a client or driver reads it beside the number.
    public var codeName: String { code.name }

    public var description: String { "\(codeName) (\(code)): \(message)" }

    package static func badValue(_ message: String) -> StoreError {
        StoreError(code: .badValue, message: message)
    }
    package static func failedToParse(_ message: String) -> StoreError {
        StoreError(code: .failedToParse, message: message)
    }
    package static func typeMismatch(_ message: String) -> StoreError {
        StoreError(code: .typeMismatch, message: message)
    }
    package static func conflictingUpdateOperators(_ message: String) -> StoreError {
        StoreError(code: .conflictingUpdateOperators, message: message)
    }
    package static func immutableField(_ message: String) -> StoreError {
        StoreError(code: .immutableField, message: message)
    }
    package static func pathNotViable(_ message: String) -> StoreError {
        StoreError(code: .pathNotViable, message: message)
    }
    package static func duplicateKey(_ message: String) -> StoreError {
        StoreError(code: .duplicateKey, message: message)
    }
    package static func namespaceNotFound(_ message: String) -> StoreError {
        StoreError(code: .namespaceNotFound, message: message)
    }
    package static func changeStreamHistoryLost(_ message: String) -> StoreError {
        StoreError(code: .changeStreamHistoryLost, message: message)
    }
    package static func bsonObjectTooLarge(_ message: String) -> StoreError {
        StoreError(code: .bsonObjectTooLarge, message: message)
    }
    package static func cannotBackfillArray(_ message: String) -> StoreError {
        StoreError(code: .cannotBackfillArray, message: message)
    }
    package static func maxTimeMSExpired(_ message: String) -> StoreError {
        StoreError(code: .maxTimeMSExpired, message: message)
    }
    /// The disk holding the store is full (SQLite's `SQLITE_FULL`): the write was rolled back and can be retried
    /// once space is freed.
    package static func outOfDiskSpace(_ message: String) -> StoreError {
        StoreError(code: .outOfDiskSpace, message: message)
    }
    /// The store's files or its directory could not be opened or created.
    package static func cannotOpenStore(_ message: String) -> StoreError {
        StoreError(code: .cannotOpenStore, message: message)
    }
    /// The store's files could not be read or written (an I/O error, a file that is not a database, the store
    /// closed): nothing the request did wrong.
    package static func storageFailure(_ message: String) -> StoreError {
        StoreError(code: .storageFailure, message: message)
    }
    /// The store's files hold less than was committed (a write-ahead log or database file deleted, truncated or
    /// damaged): the store refuses to open rather than go on without the missing data.
    package static func dataCorruptionDetected(_ message: String) -> StoreError {
        StoreError(code: .dataCorruptionDetected, message: message)
    }

    /// Whether the error comes from the storage under the store rather than from the request: a server-side
    /// failure an HTTP answer reports with a 5xx status.
    public var isStorageFailure: Bool { code.isStorageFailure }

    /// An error MongoDB reports by the source location that raised it (`Location15998`) rather than by a named
    /// code: the number is the one MongoDB answers, so clients that test it see the same.
    package static func location(_ code: Code, _ message: String) -> StoreError {
        StoreError(code: code, message: message)
    }
}
