import BSON

/// Capped logs written with the earlier layout: the same documents, with an index on `{<timeField>: -1, _id: -1}`.
/// The log keeps no index of its own: the store sorts a query's matches in memory and plans no range on a
/// descending index, so that index serves no query and costs every record two index writes (its insert and its
/// prune). Preparing the log drops it.
extension CappedLog {
    /// Drops the earlier layout's `{<timeField>: -1, _id: -1}` index, if the collection has it.
    func dropEarlierLayoutIndex() async throws {
        try await collection.dropIndex(keyed: [timeField: -1, "_id": -1])
    }
}
