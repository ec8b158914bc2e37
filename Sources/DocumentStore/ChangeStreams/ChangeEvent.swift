import BSON

/// One change, shaped like a MongoDB change event. The typed fields are read from `raw`, the event
/// document after the stream's pipeline (so a `$project` that removes a field makes it nil here too).
public struct ChangeEvent: Sendable, Equatable {
    public enum OperationType: String, Sendable {
        case insert, update, replace, delete, drop, rename, dropDatabase, invalidate
        case create, createIndexes, dropIndexes, modify

        /// The DDL events a stream emits only when opened with `showExpandedEvents`.
        package var isExpanded: Bool {
            switch self {
            case .create, .createIndexes, .dropIndexes, .modify: true
            default: false
            }
        }
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
    /// What a DDL event did (`create`: the collection's options and `idIndex`; `createIndexes` and
    /// `dropIndexes`: `indexes`; `modify`: the options set; `rename`: `to`), under `showExpandedEvents`.
    public var operationDescription: BSONDocument?
    public var raw: BSONDocument

    /// An event read back from its document (one a change stream emitted, saved as Extended JSON):
    /// `_id` must be one of this store's resume tokens and `operationType` a known type; events that change
    /// a document must also name it (`ns` with `db` and `coll`, and `documentKey`).
    package init(raw: BSONDocument) throws(StoreError) {
        guard let id = raw["_id"] else { throw .badValue("change event has no _id (its resume token)") }
        guard let document = id.documentValue, let token = ResumeToken(document) else {
            throw .badValue(
                "change event _id \(id.extendedJSON(mode: .relaxed)) is not a resume token of this store "
                    + "({\"_data\": \"<16 hexadecimal digits>\"})")
        }
        guard let name = raw["operationType"]?.stringValue else {
            throw .badValue("change event has no operationType string")
        }
        guard let type = OperationType(rawValue: name) else {
            throw .badValue("change event has an unknown operationType '\(name)'")
        }
        if [.insert, .update, .replace, .delete].contains(type) {
            guard let ns = raw["ns"]?.documentValue, ns["db"]?.stringValue != nil, ns["coll"]?.stringValue != nil
            else { throw .badValue("\(name) event needs ns: {db: <string>, coll: <string>}") }
            guard raw["documentKey"]?.documentValue != nil else {
                throw .badValue("\(name) event needs a documentKey document")
            }
        }
        self.init(raw: raw, token: token, operationType: type)
    }

    init(raw: BSONDocument, token: ResumeToken, operationType: OperationType) {
        self.id = token
        self.operationType = raw["operationType"]?.stringValue.flatMap(OperationType.init(rawValue:)) ?? operationType
        self.raw = raw
        if case .timestamp(let t) = raw["clusterTime"] { clusterTime = t }
        if case .datetime(let d) = raw["wallTime"] { wallTime = d }
        namespace = raw["ns"]?.documentValue.flatMap(Self.namespace)
        to = raw["to"]?.documentValue.flatMap(Self.namespace)
        operationDescription = raw["operationDescription"]?.documentValue
        documentKey = raw["documentKey"]?.documentValue
        fullDocument = raw["fullDocument"]?.documentValue
        fullDocumentBeforeChange = raw["fullDocumentBeforeChange"]?.documentValue
        updateDescription = raw["updateDescription"]?.documentValue.map(Self.updateDescription)
    }

    /// An insert's event with its fields as `init(raw:token:operationType:)` would read them from `raw`.
    init(
        insert raw: BSONDocument, token: ResumeToken, clusterTime: BSONTimestamp, wallTime: BSONDate,
        namespace: Namespace, documentKey: BSONDocument, fullDocument: BSONDocument
    ) {
        self.id = token
        self.operationType = .insert
        self.raw = raw
        self.clusterTime = clusterTime
        self.wallTime = wallTime
        self.namespace = namespace
        self.documentKey = documentKey
        self.fullDocument = fullDocument
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
