import DocumentStore
import Testing

/// The numbers and names a client reads from a store error are MongoDB's, so a driver's or an SDK's handling of
/// them (a retry on `DuplicateKey`, a message for `MaxTimeMSExpired`) works unchanged against the store.
@Suite struct StoreErrorTests {
    @Test func namedCodesCarryMongoDBsNumbersAndNames() {
        let codes: [(StoreError.Code, Int, String)] = [
            (.badValue, 2, "BadValue"), (.failedToParse, 9, "FailedToParse"), (.typeMismatch, 14, "TypeMismatch"),
            (.illegalOperation, 20, "IllegalOperation"), (.namespaceNotFound, 26, "NamespaceNotFound"),
            (.indexNotFound, 27, "IndexNotFound"), (.pathNotViable, 28, "PathNotViable"),
            (.cannotBackfillArray, 34, "CannotBackfillArray"),
            (.conflictingUpdateOperators, 40, "ConflictingUpdateOperators"),
            (.noMatchingDocument, 47, "NoMatchingDocument"), (.namespaceExists, 48, "NamespaceExists"),
            (.maxTimeMSExpired, 50, "MaxTimeMSExpired"), (.dollarPrefixedFieldName, 52, "DollarPrefixedFieldName"),
            (.emptyFieldName, 56, "EmptyFieldName"), (.immutableField, 66, "ImmutableField"),
            (.invalidOptions, 72, "InvalidOptions"), (.indexOptionsConflict, 85, "IndexOptionsConflict"),
            (.indexKeySpecsConflict, 86, "IndexKeySpecsConflict"),
            (.invalidPipelineOperator, 168, "InvalidPipelineOperator"),
            (.invalidIndexSpecificationOption, 197, "InvalidIndexSpecificationOption"),
            (.conversionFailure, 241, "ConversionFailure"), (.invalidResumeToken, 260, "InvalidResumeToken"),
            (.changeStreamFatalError, 280, "ChangeStreamFatalError"),
            (.changeStreamHistoryLost, 286, "ChangeStreamHistoryLost"),
            (.dataCorruptionDetected, 302, "DataCorruptionDetected"),
            (.bsonObjectTooLarge, 10334, "BSONObjectTooLarge"), (.duplicateKey, 11000, "DuplicateKey"),
            (.outOfDiskSpace, 14031, "OutOfDiskSpace"), (.cannotOpenStore, 17010, "Location17010"),
            (.storageFailure, 17011, "Location17011"),
        ]
        for (code, number, name) in codes {
            #expect(code.rawValue == number, "\(name)")
            #expect(code.name == name, "\(number)")
        }
    }

    /// MongoDB's location codes have no name of their own: `Location<code>`.
    @Test func unnamedCodesAreNamedByTheirLocation() {
        let error = StoreError.location(15998, "FieldPath field names may not be empty strings.")
        #expect(error.code == 15998)
        #expect(error.codeName == "Location15998")
        #expect(error.description == "Location15998 (15998): FieldPath field names may not be empty strings.")
    }

    @Test func factoriesAnswerWithTheirNamedCode() {
        let duplicate = StoreError.duplicateKey("E11000 duplicate key error")
        #expect(duplicate.code == .duplicateKey && duplicate.codeName == "DuplicateKey")
        #expect(StoreError.outOfDiskSpace("full").code.isStorageFailure)
        #expect(StoreError.storageFailure("I/O").code.isStorageFailure)
        #expect(StoreError.cannotOpenStore("gone").code.isStorageFailure)
        #expect(!StoreError.badValue("bad").code.isStorageFailure)
    }
}
