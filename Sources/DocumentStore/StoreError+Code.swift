extension StoreError {
    /// A MongoDB server error code, the number a client, a driver or the wire protocol reads. A struct wrapping the
    /// number rather than an enum: most of the store's codes are MongoDB's unnamed location codes, any operator may
    /// add one, and a user's `switch` keeps compiling when it does. The named codes below are MongoDB's own, with
    /// its `codeName`s.
    public struct Code: RawRepresentable, Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        public var rawValue: Int

        public init(rawValue: Int) { self.rawValue = rawValue }
        public init(integerLiteral value: Int) { self.rawValue = value }

        public var description: String { String(rawValue) }

        public static let badValue: Code = 2
        public static let failedToParse: Code = 9
        /// A `DocumentAccess` refused the read or write.
        public static let unauthorized: Code = 13
        public static let typeMismatch: Code = 14
        public static let illegalOperation: Code = 20
        public static let namespaceNotFound: Code = 26
        public static let indexNotFound: Code = 27
        public static let pathNotViable: Code = 28
        public static let cannotBackfillArray: Code = 34
        public static let conflictingUpdateOperators: Code = 40
        public static let noMatchingDocument: Code = 47
        public static let namespaceExists: Code = 48
        public static let maxTimeMSExpired: Code = 50
        public static let dollarPrefixedFieldName: Code = 52
        public static let emptyFieldName: Code = 56
        public static let immutableField: Code = 66
        public static let invalidOptions: Code = 72
        /// A document did not satisfy its collection's schema.
        /// A write met a concurrent change it must not overlap (another instance changed the catalog): retry it.
        public static let writeConflict: Code = 112
        public static let documentValidationFailure: Code = 121
        public static let indexOptionsConflict: Code = 85
        public static let indexKeySpecsConflict: Code = 86
        public static let invalidPipelineOperator: Code = 168
        public static let invalidIndexSpecificationOption: Code = 197
        public static let conversionFailure: Code = 241
        public static let invalidResumeToken: Code = 260
        public static let changeStreamFatalError: Code = 280
        public static let changeStreamHistoryLost: Code = 286
        public static let dataCorruptionDetected: Code = 302
        public static let bsonObjectTooLarge: Code = 10334
        public static let duplicateKey: Code = 11000
        public static let outOfDiskSpace: Code = 14031
        /// The store's files or directory could not be opened or created. MongoDB names no code for it, so its
        /// name is `Location17010`.
        public static let cannotOpenStore: Code = 17010
        /// The store's files could not be read or written. MongoDB names no code for it, so its name is
        /// `Location17011`.
        public static let storageFailure: Code = 17011

        /// MongoDB's `codeName`: its name for a named code, `Location<code>` for the rest, as MongoDB answers them.
        public var name: String {
            switch self {
            case .badValue: "BadValue"
            case .failedToParse: "FailedToParse"
            case .unauthorized: "Unauthorized"
            case .typeMismatch: "TypeMismatch"
            case .illegalOperation: "IllegalOperation"
            case .namespaceNotFound: "NamespaceNotFound"
            case .indexNotFound: "IndexNotFound"
            case .pathNotViable: "PathNotViable"
            case .cannotBackfillArray: "CannotBackfillArray"
            case .conflictingUpdateOperators: "ConflictingUpdateOperators"
            case .noMatchingDocument: "NoMatchingDocument"
            case .namespaceExists: "NamespaceExists"
            case .maxTimeMSExpired: "MaxTimeMSExpired"
            case .dollarPrefixedFieldName: "DollarPrefixedFieldName"
            case .emptyFieldName: "EmptyFieldName"
            case .immutableField: "ImmutableField"
            case .invalidOptions: "InvalidOptions"
            case .writeConflict: "WriteConflict"
            case .documentValidationFailure: "DocumentValidationFailure"
            case .indexOptionsConflict: "IndexOptionsConflict"
            case .indexKeySpecsConflict: "IndexKeySpecsConflict"
            case .invalidPipelineOperator: "InvalidPipelineOperator"
            case .invalidIndexSpecificationOption: "InvalidIndexSpecificationOption"
            case .conversionFailure: "ConversionFailure"
            case .invalidResumeToken: "InvalidResumeToken"
            case .changeStreamFatalError: "ChangeStreamFatalError"
            case .changeStreamHistoryLost: "ChangeStreamHistoryLost"
            case .dataCorruptionDetected: "DataCorruptionDetected"
            case .bsonObjectTooLarge: "BSONObjectTooLarge"
            case .duplicateKey: "DuplicateKey"
            case .outOfDiskSpace: "OutOfDiskSpace"
            default: "Location\(rawValue)"
            }
        }

        /// Whether the code reports the storage under the store rather than the request: a server-side failure,
        /// which an HTTP answer reports with a 5xx status.
        public var isStorageFailure: Bool {
            self == .outOfDiskSpace || self == .cannotOpenStore || self == .storageFailure
        }
    }
}
