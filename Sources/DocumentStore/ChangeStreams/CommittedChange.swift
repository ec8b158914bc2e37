import BSON

/// A change-log entry as a transaction just committed it, handed to change streams in memory
/// (`ChangeNotifier`): the stored entry, and for an insert what its event is made of, so that a stream
/// builds the event from the inserted document instead of decoding the stored bytes back into it.
struct CommittedChange: Sendable {
    struct Insert: Sendable {
        var namespace: Namespace
        var id: BSON
        /// The document as inserted: what decoding the entry's `fullDocument` would give.
        var document: BSONDocument
    }

    var record: ChangeRecord
    var clusterTime: BSONTimestamp
    var insert: Insert?

    var sequence: Int64 { record.sequence }

    /// The insert's event for a stream of `scope` (nil when the stream does not see the namespace), as
    /// `StoreView.render` makes it from the stored entry: `_id`, `operationType`, `clusterTime`,
    /// `wallTime`, `fullDocument`, `ns`, `documentKey`.
    static func event(_ insert: Insert, of record: ChangeRecord, clusterTime: BSONTimestamp, scope: ChangeStreamScope)
        -> ChangeEvent?
    {
        switch scope {
        case .store: break
        case .database(let name): guard insert.namespace.database == name else { return nil }
        case .collection(let watched): guard insert.namespace == watched else { return nil }
        }
        let token = ResumeToken(sequence: record.sequence)
        let wallTime = BSONDate(millisecondsSinceEpoch: record.wallTime)
        var documentKey = BSONDocument()
        documentKey.append("_id", insert.id)
        var ns = BSONDocument()
        ns.reserveCapacity(2)
        ns.append("db", .string(insert.namespace.database))
        ns.append("coll", .string(insert.namespace.collection))
        var raw = BSONDocument()
        raw.reserveCapacity(7)
        raw.append("_id", .document(token.document))
        raw.append("operationType", "insert")
        raw.append("clusterTime", .timestamp(clusterTime))
        raw.append("wallTime", .datetime(wallTime))
        raw.append("fullDocument", .document(insert.document))
        raw.append("ns", .document(ns))
        raw.append("documentKey", .document(documentKey))
        return ChangeEvent(
            insert: raw, token: token, clusterTime: clusterTime, wallTime: wallTime, namespace: insert.namespace,
            documentKey: documentKey, fullDocument: insert.document)
    }
}
