import BSON

/// An error from the store, shaped like a MongoDB server error: a numeric code, its name, and a message
/// (`E11000 duplicate key error …`, code 11000, `DuplicateKey`). A struct wrapping a code, so that new
/// codes never break users' `switch`es.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var codeName: String
    public var message: String

    public init(code: Int, codeName: String, message: String) {
        self.code = code
        self.codeName = codeName
        self.message = message
    }

    public var description: String { "\(codeName) (\(code)): \(message)" }

    public static func badValue(_ message: String) -> StoreError {
        StoreError(code: 2, codeName: "BadValue", message: message)
    }
    public static func failedToParse(_ message: String) -> StoreError {
        StoreError(code: 9, codeName: "FailedToParse", message: message)
    }
    public static func typeMismatch(_ message: String) -> StoreError {
        StoreError(code: 14, codeName: "TypeMismatch", message: message)
    }
    public static func conflictingUpdateOperators(_ message: String) -> StoreError {
        StoreError(code: 40, codeName: "ConflictingUpdateOperators", message: message)
    }
    public static func immutableField(_ message: String) -> StoreError {
        StoreError(code: 66, codeName: "ImmutableField", message: message)
    }
    public static func pathNotViable(_ message: String) -> StoreError {
        StoreError(code: 28, codeName: "PathNotViable", message: message)
    }
    public static func duplicateKey(_ message: String) -> StoreError {
        StoreError(code: 11000, codeName: "DuplicateKey", message: message)
    }
    public static func namespaceNotFound(_ message: String) -> StoreError {
        StoreError(code: 26, codeName: "NamespaceNotFound", message: message)
    }
    public static func changeStreamHistoryLost(_ message: String) -> StoreError {
        StoreError(code: 286, codeName: "ChangeStreamHistoryLost", message: message)
    }
    public static func bsonObjectTooLarge(_ message: String) -> StoreError {
        StoreError(code: 10334, codeName: "BSONObjectTooLarge", message: message)
    }
    public static func cannotBackfillArray(_ message: String) -> StoreError {
        StoreError(code: 34, codeName: "CannotBackfillArray", message: message)
    }
    public static func maxTimeMSExpired(_ message: String) -> StoreError {
        StoreError(code: 50, codeName: "MaxTimeMSExpired", message: message)
    }
    /// The disk holding the store is full (SQLite's `SQLITE_FULL`): the write was rolled back and can be retried
    /// once space is freed. MongoDB's own code and name for it.
    public static func outOfDiskSpace(_ message: String) -> StoreError {
        StoreError(code: 14_031, codeName: "OutOfDiskSpace", message: message)
    }
    /// The store's files could not be read or written (an I/O error, a file that is not a database, the store
    /// closed): nothing the request did wrong.
    public static func storageFailure(_ message: String) -> StoreError {
        StoreError(code: 17_011, codeName: "Location17011", message: message)
    }
    /// The store's files hold less than was committed (a write-ahead log or database file deleted, truncated or
    /// damaged): the store refuses to open rather than go on without the missing data.
    public static func dataCorruptionDetected(_ message: String) -> StoreError {
        StoreError(code: 302, codeName: "DataCorruptionDetected", message: message)
    }
    /// Whether the error comes from the storage under the store rather than from the request: a server-side
    /// failure an HTTP answer reports with a 5xx status.
    public var isStorageFailure: Bool { Self.isStorageFailure(code: code) }

    public static func location(_ code: Int, _ message: String) -> StoreError {
        StoreError(code: code, codeName: "Location\(code)", message: message)
    }
}
