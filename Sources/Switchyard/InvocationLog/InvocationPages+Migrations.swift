import BSON
import DocumentStore
import Foundation

/// Invocation logs written with the earlier layout, read and tidied here, so that the rest of `InvocationPages`
/// knows pages only.
///
/// The earlier layout keeps one document per record (`InvocationRecord.document`, with its `start`) and an index on
/// `{start: -1, _id: -1}`. Such a record is read as a page of one and pruned like one, so the log moves to pages as
/// its old records fall beyond the retention. The index is dropped when the log is prepared: the log is read whole
/// and sorted in memory, so it serves no query, and a collection with an index takes documents decoded, never as
/// their bytes.
extension InvocationPages {
    /// Drops the earlier layout's `{start: -1, _id: -1}` index, if the collection has it.
    func prepare() async throws {
        try await collection.dropIndex(keyed: ["start": -1, "_id": -1])
    }

    /// A record stored alone: its start, its id and a count of one; nil when `document` is not such a record.
    static func singleRecordHeader(_ document: BSONDocument, id: ObjectId) -> (key: LogOrder.Key, count: Int)? {
        guard case .datetime(let start) = document["start"] else { return nil }
        return (LogOrder.Key(time: start, id: id), 1)
    }
}

extension InvocationPages.StoredPage {
    /// A record stored alone, read as a page of one.
    init(singleRecord document: BSONDocument) {
        let start = Self.date(document["start"])
        self.init(
            id: document["_id"] ?? .null, first: start ?? .distantPast, last: start ?? .distantFuture,
            records: [document])
    }
}
