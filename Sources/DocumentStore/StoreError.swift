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
    public static func location(_ code: Int, _ message: String) -> StoreError {
        StoreError(code: code, codeName: "Location\(code)", message: message)
    }
}
