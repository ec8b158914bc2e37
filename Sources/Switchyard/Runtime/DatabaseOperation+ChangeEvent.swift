import DocumentStore

extension DatabaseOperation {
    /// The change event's `operationType` the operation fires on; nil for the sharding operations, which this
    /// store never performs.
    package var changeEventType: ChangeEvent.OperationType? {
        switch self {
        case .insert: .insert
        case .update: .update
        case .replace: .replace
        case .delete: .delete
        case .createCollection: .create
        case .modifyCollection: .modify
        case .renameCollection: .rename
        case .dropCollection: .drop
        case .createIndexes: .createIndexes
        case .dropIndexes: .dropIndexes
        case .dropDatabase: .dropDatabase
        case .shardCollection, .reshardCollection, .refineCollectionShardKey: nil
        }
    }

    /// The operation a trigger names to fire on change events of `type`; nil for `invalidate`, which no
    /// trigger receives.
    package init?(changeEventType type: ChangeEvent.OperationType) {
        guard let operation = Self.allCases.first(where: { $0.changeEventType == type }) else { return nil }
        self = operation
    }
}
