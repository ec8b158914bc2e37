import BSON

/// One change, shaped like a MongoDB change event. The typed fields are read from `raw`, the event
/// document after the stream's pipeline (so a `$project` that removes a field makes it nil here too).
public struct ChangeEvent: Sendable, Equatable {
    public enum OperationType: String, Sendable {
        case insert, update, replace, delete, drop, rename, dropDatabase, invalidate
    }

    public var id: ResumeToken
    public var operationType: OperationType
    public var clusterTime: BSONTimestamp?
    public var wallTime: BSONDate?
    /// `ns`; `collection` is empty for `dropDatabase`.
    public var namespace: Namespace?
    public var documentKey: BSONDocument?
    public var fullDocument: BSONDocument?
    public var fullDocumentBeforeChange: BSONDocument?
    public var updateDescription: UpdateDescription?
    /// The new name, for `rename`.
    public var to: Namespace?
    public var raw: BSONDocument

    init(raw: BSONDocument, token: ResumeToken, operationType: OperationType) {
        self.id = token
        self.operationType = raw["operationType"]?.stringValue.flatMap(OperationType.init(rawValue:)) ?? operationType
        self.raw = raw
        if case .timestamp(let t) = raw["clusterTime"] { clusterTime = t }
        if case .datetime(let d) = raw["wallTime"] { wallTime = d }
        namespace = raw["ns"]?.documentValue.flatMap(Self.namespace)
        to = raw["to"]?.documentValue.flatMap(Self.namespace)
        documentKey = raw["documentKey"]?.documentValue
        fullDocument = raw["fullDocument"]?.documentValue
        fullDocumentBeforeChange = raw["fullDocumentBeforeChange"]?.documentValue
        updateDescription = raw["updateDescription"]?.documentValue.map(Self.updateDescription)
    }

    private static func namespace(_ document: BSONDocument) -> Namespace? {
        guard let database = document["db"]?.stringValue else { return nil }
        return Namespace(database: database, collection: document["coll"]?.stringValue ?? "")
    }

    private static func updateDescription(_ document: BSONDocument) -> UpdateDescription {
        let removed = document["removedFields"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let truncated =
            document["truncatedArrays"]?.arrayValue?.compactMap { value -> UpdateDescription.TruncatedArray? in
                guard let d = value.documentValue, let field = d["field"]?.stringValue,
                    let size = d["newSize"]?.int64Value, let newSize = Int32(exactly: size)
                else { return nil }
                return UpdateDescription.TruncatedArray(field: field, newSize: newSize)
            } ?? []
        return UpdateDescription(
            updatedFields: document["updatedFields"]?.documentValue ?? [:], removedFields: removed,
            truncatedArrays: truncated)
    }
}
